//go:build !unix

package ingest

import "errors"

func mkfifo(string) error { return errors.ErrUnsupported }
