package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// signalError: a SIGINT or SIGTERM stopped the command; err is what the
// command returned as it stopped, if anything.
type signalError struct {
	sig syscall.Signal
	err error
}

func (s signalError) Error() string {
	name := "SIGTERM"
	if s.sig == syscall.SIGINT {
		name = "SIGINT"
	}
	// what a cancelled context made a command return says nothing more
	if s.err == nil || errors.Is(s.err, context.Canceled) {
		return "stopped by " + name
	}
	return "stopped by " + name + ": " + s.err.Error()
}

func (s signalError) Unwrap() error { return s.err }

// interruptible returns a context that ends at the first SIGINT or SIGTERM,
// with a signalError as its cause: every command then stops the way it
// stops on any cancelled context, its deferred closes releasing the
// workspace lock. A second signal is not caught and ends the process at
// once, the way out of anything that does not stop; the kernel drops the
// lock with it, and an ingest resumes from its last indexed batch.
func interruptible(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			sig, _ := s.(syscall.Signal)
			cancel(signalError{sig: sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// stoppedBy wraps err as a signalError when a signal ended ctx, so that
// exitCode maps it to 128+signal whatever the command made of its
// cancelled context.
func stoppedBy(ctx context.Context, err error) error {
	var sig signalError
	if errors.As(context.Cause(ctx), &sig) {
		sig.err = err
		return sig
	}
	return err
}
