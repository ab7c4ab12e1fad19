package incident_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/incident"
)

// However a sample's files arrive (all at once; one by one with the
// ledger last, each file late for the events before it; the ledger
// first; all at once and then again, every event already stored), every event ends with the
// same agent, attribution and tags, and the detectors find the same.
func TestIngestOrderChangesNothing(t *testing.T) {
	ctx := context.Background()
	for _, dir := range ledgerSamples(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			files := evidenceFiles(t, dir)
			ingest := func(name string, rounds ...[]string) (map[string]string, string) {
				ws, err := incident.Create(filepath.Join(t.TempDir(), name))
				if err != nil {
					t.Fatal(err)
				}
				defer ws.Close()
				for _, in := range rounds {
					if _, err := ws.Ingest(ctx, in, incident.IngestOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				return incident.StoredAttributions(t, ws), findingsOf(t, ws)
			}
			wantEvents, wantFindings := ingest("at-once", []string{dir})
			if len(wantEvents) == 0 {
				t.Fatal("nothing ingested")
			}
			var oneByOne [][]string
			for i := len(files) - 1; i >= 0; i-- {
				if filepath.Base(files[i]) != "ledger.jsonl" {
					oneByOne = append(oneByOne, []string{files[i]})
				}
			}
			oneByOne = append(oneByOne, []string{filepath.Join(dir, "ledger.jsonl")})
			for name, rounds := range map[string][][]string{
				"one-by-one, the ledger last": oneByOne,
				"the ledger first":            {{filepath.Join(dir, "ledger.jsonl")}, {dir}},
				"twice":                       {{dir}, {copyOf(t, dir)}},
			} {
				events, findings := ingest(strings.ReplaceAll(name, " ", "-"), rounds...)
				diff := 0
				for id, want := range wantEvents {
					if got := events[id]; got != want && diff < 5 {
						diff++
						t.Errorf("%s: event %s is %s, at once %s", name, id, got, want)
					}
				}
				if len(events) != len(wantEvents) {
					t.Errorf("%s: %d events, at once %d", name, len(events), len(wantEvents))
				}
				if findings != wantFindings {
					t.Errorf("%s: the findings differ from those at once:\n%s\n---\n%s", name, findings, wantFindings)
				}
			}
		})
	}
}

// ledgerSamples are the bundled sample incidents that hold a ledger.
func ledgerSamples(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("..", "sample-incidents"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		dir := filepath.Join("..", "sample-incidents", e.Name())
		if _, err := os.Stat(filepath.Join(dir, "ledger.jsonl")); err == nil {
			out = append(out, dir)
		}
	}
	if len(out) == 0 {
		t.Fatal("no sample incident with a ledger")
	}
	return out
}

// evidenceFiles are a sample's files that cordon reads, in path order.
func evidenceFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := filepath.Ext(p); ext == ".jsonl" || ext == ".log" || ext == ".json" {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func copyOf(t *testing.T, dir string) string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(cp, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return cp
}

func findingsOf(t *testing.T, ws *incident.Workspace) string {
	t.Helper()
	r, err := ws.Result(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(r.Findings, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
