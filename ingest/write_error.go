package ingest

import "fmt"

// WriteError is a run that ended because the store could not write to
// disk (it wraps evidence.ErrWrite). What it stored is kept with the
// checkpoints that cover it; the same run again resumes after it.
type WriteError struct {
	Stored int // events of this run on disk
	Read   int // events of this run parsed
	Err    error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("stored %d of %d events read; the rest was not written: %v", e.Stored, e.Read, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

func storedEvents(rs []FileResult) int {
	n := 0
	for _, r := range rs {
		n += r.Stored
	}
	return n
}

func readEvents(rs []FileResult) int {
	n := 0
	for _, r := range rs {
		n += r.Events
	}
	return n
}
