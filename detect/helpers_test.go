package detect_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
)

type sink struct{ evs []evidence.Event }

func (s *sink) Event(ev evidence.Event) error { s.evs = append(s.evs, ev); return nil }
func (s *sink) Reject(parse.Reject) error     { return nil }

// loadSample parses every evidence file of a sample incident.
func loadSample(t *testing.T, name string) []evidence.Event {
	t.Helper()
	return loadFiles(t, filepath.Join("..", "sample-incidents", name))
}

// loadFiles parses every evidence file under paths (files or folders).
func loadFiles(t *testing.T, paths ...string) []evidence.Event {
	t.Helper()
	files, err := ingest.Expand(paths)
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReaderSize(fh, 512<<10)
		p, err := ingest.Sniff(br, ingest.Parsers())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ingest.Stream(br, f, p, ingest.Position{}, s, nil); err != nil {
			t.Fatal(err)
		}
		fh.Close()
	}
	return s.evs
}

// indexed indexes events in a store in t.TempDir(), closed at cleanup.
func indexed(t *testing.T, evs []evidence.Event) evidence.Store {
	t.Helper()
	st, err := evidence.Open(filepath.Join(t.TempDir(), "index"), evidence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Index(context.Background(), evs, nil); err != nil {
		t.Fatal(err)
	}
	return st
}
