package incident

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/journal"
)

// receivedDir holds evidence that reached the workspace as a stream of
// events rather than as files (cordon pull): kept as files, so that the
// chain of custody, evidence verify and a rebuild treat them as any input.
const receivedDir = "received"

// receivedName is what a received file may be called: one path element,
// chosen by cordon, never by the evidence.
var receivedName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$`)

// ErrReceived: a received file of that name is in the workspace already.
var ErrReceived = errors.New("received evidence already kept under that name")

// Receive keeps what write writes as received/NAME in the workspace
// (private, synced, renamed into place whole), then ingests that file as
// Ingest does, in opt.Format, journaling its receipt with where write says
// it came from. The file is the evidence as it arrived; the index is made
// from it.
func (w *Workspace) Receive(ctx context.Context, name string, write func(io.Writer) (from string, err error), opt IngestOptions) ([]ingest.FileResult, error) {
	if !w.write {
		return nil, errors.New("incident opened read-only")
	}
	if !receivedName.MatchString(name) {
		return nil, fmt.Errorf("received evidence: %q is not a file name", name)
	}
	dir := filepath.Join(w.Dir, receivedDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("received evidence: %w", err)
	}
	path := filepath.Join(dir, name)
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("%w: %s", ErrReceived, path)
	}
	from, err := writeReceived(path, write)
	if err != nil {
		return nil, err
	}
	opt.From = from
	return w.Ingest(ctx, []string{path}, opt)
}

// writeReceived writes path through a synced temporary file, so that a
// received file is either whole or absent.
func writeReceived(path string, write func(io.Writer) (string, error)) (from string, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".receive-*")
	if err != nil {
		return "", fmt.Errorf("received evidence: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(journal.FileMode); err != nil {
		tmp.Close()
		return "", fmt.Errorf("received evidence: %w", err)
	}
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if from, err = write(bw); err != nil {
		tmp.Close()
		return "", err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return "", fmt.Errorf("received evidence: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", fmt.Errorf("received evidence: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("received evidence: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("received evidence: %w", err)
	}
	return from, nil
}

// ReceiveFollow keeps what write writes as received/NAME in the workspace
// while it writes it, and follows the file as Follow follows an input
// (interval, round), until ctx ends and write returned: evidence that
// keeps coming (cordon pull --follow). write calls flush when what it
// wrote is to be read; the receipts say the file came from from.
func (w *Workspace) ReceiveFollow(ctx context.Context, name, from string, write func(w io.Writer, flush func() error) error, opt IngestOptions, interval time.Duration, round func([]ingest.FileResult)) error {
	if !w.write {
		return errors.New("incident opened read-only")
	}
	if !receivedName.MatchString(name) {
		return fmt.Errorf("received evidence: %q is not a file name", name)
	}
	dir := filepath.Join(w.Dir, receivedDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("received evidence: %w", err)
	}
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, journal.FileMode)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%w: %s", ErrReceived, path)
	}
	if err != nil {
		return fmt.Errorf("received evidence: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	flush := func() error {
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("received evidence: %w", err)
		}
		return f.Sync()
	}
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	wrote := make(chan error, 1)
	go func() {
		err := write(bw, flush)
		if ferr := flush(); err == nil {
			err = ferr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			stop() // the follow ends with the writer
		}
		wrote <- err
	}()
	opt.From = from
	ferr := w.Follow(fctx, []string{path}, opt, interval, round)
	stop()
	if err := <-wrote; err != nil {
		return err
	}
	if ferr != nil {
		return ferr
	}
	// what was written after the follow's last round
	res, err := w.Ingest(context.WithoutCancel(ctx), []string{path}, IngestOptions{Format: opt.Format, Actor: opt.Actor, From: from})
	if round != nil && err == nil {
		round(res)
	}
	return err
}
