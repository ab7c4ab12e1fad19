package inspect

import (
	"archive/zip"
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cordon-ir/cordon/ingest/parse"
)

// parseEval reads a .eval container: the evaluation from header.json (or,
// for a log still being written, _journal/start.json), then each
// samples/<id>_epoch_<n>.json in turn. ZIP needs random access; without it
// (stdin, a gzip-wrapped file) the input is first copied to a temporary file.
func (p parser) parseEval(in parse.Input, r io.Reader, out parse.Sink) error {
	at, size := in.At, in.Size
	if at == nil {
		f, n, err := spool(r)
		if err != nil {
			return fmt.Errorf("copy .eval to a temporary file (ZIP needs random access): %w", err)
		}
		defer func() { f.Close(); os.Remove(f.Name()) }()
		at, size = f, n
	}
	zr, err := zip.NewReader(at, size)
	if err != nil {
		return out.Reject(parse.Reject{Origin: in.Name, Reason: "not a readable .eval (ZIP) file: " + err.Error()})
	}
	h := &inspectHeader{}
	if f := evalEntry(zr, "header.json", "_journal/start.json"); f != nil {
		if err := readEntry(f, func(dec *json.Decoder) error {
			return walkLog(dec, h, func() error { return skipValue(dec) })
		}); err != nil {
			if rerr := out.Reject(parse.Reject{Origin: in.Name + "#" + f.Name, Reason: "unreadable eval header: " + err.Error()}); rerr != nil {
				return rerr
			}
		}
	}
	if err := h.reportProblems(in.Name+"#header.json", out); err != nil {
		return err
	}
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, "samples/") || !strings.HasSuffix(f.Name, ".json") {
			continue
		}
		s := newInspectSample(p, h, in.Name+"#"+f.Name)
		err := readEntry(f, s.walk)
		if ferr := s.finish(out, err != nil); ferr != nil {
			return ferr
		}
		if err != nil {
			if rerr := out.Reject(parse.Reject{Origin: in.Name + "#" + f.Name, Reason: "unreadable sample: " + err.Error()}); rerr != nil {
				return rerr
			}
		}
	}
	return nil
}

// evalEntry is the first of names present in the container.
func evalEntry(zr *zip.Reader, names ...string) *zip.File {
	for _, n := range names {
		for _, f := range zr.File {
			if f.Name == n {
				return f
			}
		}
	}
	return nil
}

// readEntry streams one ZIP entry through a JSON decoder.
func readEntry(f *zip.File, read func(dec *json.Decoder) error) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(rc, 64<<10))
	dec.UseNumber()
	return read(dec)
}

// spool copies r to a temporary file that the caller removes.
func spool(r io.Reader) (*os.File, int64, error) {
	f, err := os.CreateTemp("", "cordon-inspect-*.eval")
	if err != nil {
		return nil, 0, err
	}
	n, err := io.Copy(f, r)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, 0, err
	}
	return f, n, nil
}
