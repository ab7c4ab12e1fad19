// Package attributiontest loads real-format evidence for the tests of the
// packages below incident (evidence, attribution, detect): parsed through
// the ingest registry, attributed as ingest does, indexed in a store on
// the test's temporary folder.
package attributiontest

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// ConsoleFixture is the evidence the console's tests open (two agents, with
// Squid, Falco and Tetragon records of the same sandboxes), from a
// top-level package's directory.
var ConsoleFixture = filepath.Join("..", "incident", "testdata", "console")

type sink struct{ evs []evidence.Event }

func (s *sink) Event(ev evidence.Event) error { s.evs = append(s.evs, ev); return nil }
func (s *sink) Reject(parse.Reject) error     { return nil }

// Sample parses every evidence file of a sample incident.
func Sample(t testing.TB, name string) []evidence.Event {
	t.Helper()
	return Files(t, filepath.Join("..", "sample-incidents", name))
}

// Files parses every evidence file under paths (files or folders).
func Files(t testing.TB, paths ...string) []evidence.Event {
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

// AttributedStore parses the evidence under paths, attributes it as ingest
// does and indexes it in a store in t.TempDir().
func AttributedStore(t testing.TB, paths ...string) evidence.Store {
	t.Helper()
	evs := Files(t, paths...)
	attribution.AttributeAll(evs)
	return Indexed(t, evs)
}

// Indexed indexes events in a store in t.TempDir(), closed at cleanup.
func Indexed(t testing.TB, evs []evidence.Event) evidence.Store {
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
