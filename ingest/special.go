package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// NotRegular is the error for an input that is not a regular file: a
// FIFO's open waits until something writes to it (for ever, for one the
// agent under investigation left in its sandbox), a device never ends, a
// socket cannot be opened at all. Evidence is files; a stream comes in on
// stdin ("-").
func NotRegular(path string, mode fs.FileMode) error {
	what := "not a regular file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	case mode&fs.ModeCharDevice != 0:
		what = "a character device"
	case mode&fs.ModeDevice != 0:
		what = "a block device"
	}
	return fmt.Errorf("%w: %s is %s, not a regular file: cordon reads evidence from files and folders (pipe a stream into cordon ingest --incident DIR - instead)", ErrUnreadable, path, what)
}

// openRegular opens path for reading if it is a regular file. Expand has
// checked already; this closes the race in which the file is swapped for a
// FIFO in between. O_NONBLOCK keeps the open itself from waiting for a
// FIFO's writer; a regular file's reads ignore it.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, NotRegular(path, info.Mode())
	}
	return f, nil
}

// ctxReader reads r until ctx ends. A read of a terminal, or of a pipe
// whose writer never closes it, does not return by itself, and must not
// hold the ingest (and the workspace lock) past a SIGTERM: the read in
// flight is left to its goroutine, which the process's exit ends.
type ctxReader struct {
	ctx     context.Context
	r       io.Reader
	pending chan readResult // the read in flight, if any
	rest    []byte          // what a read returned beyond the caller's buffer
}

type readResult struct {
	b   []byte
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if len(c.rest) > 0 {
		n := copy(p, c.rest)
		c.rest = c.rest[n:]
		return n, nil
	}
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if c.pending == nil {
		c.pending = make(chan readResult, 1)
		buf := make([]byte, max(len(p), 4096))
		go func(ch chan<- readResult) {
			n, err := c.r.Read(buf)
			ch <- readResult{buf[:n], err}
		}(c.pending)
	}
	select {
	case res := <-c.pending:
		c.pending = nil
		n := copy(p, res.b)
		c.rest = res.b[n:]
		if len(c.rest) > 0 {
			return n, nil
		}
		return n, res.err
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
}

// BrokenLink is ErrUnreadable naming path and where it points, when path
// is a symbolic link whose target cannot be found; nil for anything else.
func BrokenLink(path string) error {
	li, err := os.Lstat(path)
	if err != nil || li.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	target, err := os.Readlink(path)
	if err != nil {
		target = "?"
	}
	_, err = os.Stat(path)
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %s is a symbolic link to %s, which cannot be read (%v): restore the file it names, or point the link at the evidence", ErrUnreadable, path, target, unwrapPath(err))
}

// unwrapPath is err without the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// withLinks adds to the regular files a walk found the links it found to
// regular files, unless the file a link names is among them already (read
// once, by its own name). A broken link is refused (BrokenLink); a link to
// a folder or a special file is passed over, as such an entry is.
func withLinks(found, links []string) ([]string, error) {
	if len(links) == 0 {
		return found, nil
	}
	real := map[string]bool{}
	for _, f := range found {
		if r, err := filepath.EvalSymlinks(f); err == nil {
			real[r] = true
		}
	}
	for _, l := range links {
		info, err := os.Stat(l)
		if err != nil {
			if berr := BrokenLink(l); berr != nil {
				return nil, berr
			}
			return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
		}
		if !info.Mode().IsRegular() {
			continue
		}
		r, err := filepath.EvalSymlinks(l)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
		}
		if !real[r] {
			real[r] = true
			found = append(found, l)
		}
	}
	return found, nil
}
