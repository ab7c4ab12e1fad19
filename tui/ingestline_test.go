package tui

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/ingest"
)

func TestIngestLine(t *testing.T) {
	files := []ingest.FileResult{{Path: "a"}, {Path: "b"}}
	for _, c := range []struct {
		u    incident.IngestUpdate
		want string
	}{
		{incident.IngestUpdate{Progress: ingest.Progress{Files: 2, Bytes: 50, Total: 200, Events: 1000, Elapsed: time.Second}},
			"ingesting 25% · file 1/2 · 1,000 events · 1,000/s"},
		{incident.IngestUpdate{Following: true, Results: files, Added: 12345, Findings: -1}, "following 2 files · 12,345 new events"},
		{incident.IngestUpdate{Following: true, Results: files[:1], Findings: -1}, "following 1 file"},
		{incident.IngestUpdate{Following: true, Results: files[:1], Findings: 7, Detected: incident.FindingsChange{Created: []string{"a", "b"}}},
			"following 1 file · 7 findings, 2 new"},
		{incident.IngestUpdate{Following: true, Results: files[:1], Findings: 7}, "following 1 file · 7 findings"},
		{incident.IngestUpdate{Following: true, Results: files, Findings: 7, Held: 1200}, "following 2 files · 7 findings · 1,200 held for order"},
		{incident.IngestUpdate{Following: true, Results: files[:1], Added: 4500, Findings: 250, Held: 1234, Detected: incident.FindingsChange{Created: []string{"a", "b", "c"}}},
			"following 1 file · 250 findings, 3 new · 1,234 held for order · 4,500 new events"},
		{incident.IngestUpdate{Done: true, Progress: ingest.Progress{New: 74, Files: 4, Elapsed: 2 * time.Second}}, "ingest done: 74 new events, 4 files, 2s"},
	} {
		if got := ingestLine(c.u); got != c.want {
			t.Errorf("ingestLine(%+v) = %q, want %q", c.u, got, c.want)
		}
	}
}

// An input read in part says so; one not read at all does not, whatever
// its name says (a file named as the console's own words).
func TestNotIngestedSaysWhichWasReadInPart(t *testing.T) {
	failed := errors.New("unreadable")
	bad, partial := notIngested([]ingest.FileResult{
		{Path: "read in part: x.log", Err: failed},
		{Path: "ok.log"},
		{Path: "cut.jsonl.gz", Err: failed, Events: 3},
	})
	got := make([]string, len(bad))
	for i, u := range bad {
		got[i] = fmt.Sprintf("%v %s", u.partial, u)
	}
	want := []string{"false read in part: x.log: unreadable", "true read in part: cut.jsonl.gz: unreadable"}
	if partial != 1 || !slices.Equal(got, want) {
		t.Errorf("notIngested: %q (%d in part), want %q (1)", got, partial, want)
	}
}

// A header too narrow for the ingest's line drops its last parts first:
// a busy follow at 80 columns still says what the detectors found, where
// it said "following 1 file" alone.
func TestFitPartsKeepsTheMostTellingFirst(t *testing.T) {
	left := " 46,497 hits · all events" // 25 columns
	busy := " " + ingestLine(incident.IngestUpdate{Following: true, Results: []ingest.FileResult{{Path: "a"}},
		Added: 4500, Findings: 250, Held: 1234, Detected: incident.FindingsChange{Created: []string{"a"}}})
	for _, c := range []struct {
		w    int
		want string
	}{
		{120, busy},
		{90, " following 1 file · 250 findings, 1 new · 1,234 held for order"},
		{80, " following 1 file · 250 findings, 1 new"},
		{60, " following 1 file"},
		{10, " following 1 file"},
	} {
		if got := fitParts(left, busy, c.w); got != c.want {
			t.Errorf("at %d columns: %q, want %q", c.w, got, c.want)
		}
	}
}
