package ingest

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
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
