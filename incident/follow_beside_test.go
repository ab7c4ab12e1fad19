package incident

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/journal"
)

// A follow's detectors make a round's answer beside the ingest's next
// round: the lines appended while the answer is made are indexed
// meanwhile. A reader between the two (the console after each round)
// reads the answer of the round before, not a pass over the whole index;
// each round is told to the detectors' hook, then to the round's, in
// order; and the answer at the end is a one-shot run's.
func TestFollowDetectsBesideTheNextRound(t *testing.T) {
	lines := readLines(t, filepath.Join("..", "sample-incidents", "credential-theft", "ledger.jsonl"))
	half := len(lines) / 2
	log := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, log, lines[:half])
	w, ctx, cancel, opt, acc := followed(t)
	defer w.Close()
	defer cancel()
	w.detectInStep = false // as a console and ingest --follow do

	var mu sync.Mutex
	var told []string // "d" for the detectors' hook, "r" for the round's
	stored := make(chan int, 1)
	var midTotal, midRuns int
	var midErr error
	runs := 0 // ingest rounds that stored events
	opt.Progress = func(p ingest.Progress) {
		if !p.Done || p.New == 0 {
			return
		}
		switch runs++; runs {
		case 1:
			// the first round has read the first half: the rest comes
			// as its detectors begin
			writeLines(t, log, lines[half:])
		case 2:
			// the rest is stored; its round's detectors have not run
			fs, err := w.CachedFindings(ctx)
			midTotal, midErr, midRuns = len(fs), err, w.DetectorRuns()
			stored <- int(p.New)
		}
	}
	hook := opt.Detectors
	beside := false
	opt.Detectors = func(r LiveRound, err error) {
		hook(r, err)
		mu.Lock()
		told = append(told, "d")
		n := len(told)
		mu.Unlock()
		if n != 1 {
			return
		}
		// the first round's answer is made and its hook runs: the
		// ingest's next round stores the rest meanwhile
		select {
		case <-stored:
			beside = true
		case <-time.After(5 * time.Second):
		}
	}
	added := 0
	err := w.Follow(ctx, []string{log}, opt, time.Millisecond, func(res []ingest.FileResult) {
		mu.Lock()
		told = append(told, "r")
		mu.Unlock()
		for _, r := range res {
			added += r.New
		}
		if added == len(lines) {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !beside {
		t.Fatal("the ingest's next round did not store the appended lines while the first round's detectors were told")
	}
	if midErr != nil || midRuns != 1 || midTotal == 0 || midTotal != (*acc)[0].Change.Total {
		t.Errorf("a reader between the store and the round's detectors: %d findings, %d passes, %v; want the first round's %d and 1 pass",
			midTotal, midRuns, midErr, (*acc)[0].Change.Total)
	}
	got := strings.Join(told, "")
	// a round after the follow was stopped is told without its
	// detectors; what was held for order, with no round, as it ends
	if !strings.HasPrefix(got, "drdr") || strings.Contains(got, "dd") {
		t.Errorf("told %q, want each round's detectors then the round, in turn", got)
	}
	for i, r := range (*acc)[1:] {
		if r.Replayed != "" {
			t.Errorf("round %d replayed: %s", i+2, r.Replayed)
		}
	}
	sameAsOneShot(t, w, "at the end")
	if n := w.DetectorRuns(); n != 1 {
		t.Errorf("%d passes over the evidence, want 1 (as the follow began)", n)
	}
}

// A round's answer is shown before what it changed is journaled, and
// journaled before the next round: when the detectors are told, the
// journal names every change but this round's; once the follow ends,
// every round's, each finding created once.
func TestFollowShowsARoundBeforeItJournalsIt(t *testing.T) {
	lines := readLines(t, filepath.Join("..", "sample-incidents", "credential-theft", "ledger.jsonl"))
	third := len(lines) / 3
	log := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, log, lines[:third])
	w, ctx, cancel, opt, _ := followed(t)
	defer w.Close()
	defer cancel()
	w.detectInStep = false // as a console and ingest --follow do
	changes := func() int {
		entries, err := w.JournalEntries()
		if err != nil {
			t.Error(err)
		}
		n := 0
		for _, e := range entries {
			if e.Type == journal.EntryFindingsChanged {
				n++
			}
		}
		return n
	}
	changed := 0 // rounds told a change
	var mismatch []string
	opt.Detectors = func(r LiveRound, err error) {
		if err != nil {
			t.Error(err)
			return
		}
		if n := changes(); n != changed {
			mismatch = append(mismatch, fmt.Sprintf("told round %d: the journal names %d changes, want %d", changed+1, n, changed))
		}
		if !r.Change.Empty() {
			changed++
		}
	}
	added, writes := 0, 0
	err := w.Follow(ctx, []string{log}, opt, time.Millisecond, func(res []ingest.FileResult) {
		for _, r := range res {
			added += r.New
		}
		switch {
		case added == len(lines):
			cancel()
		case writes < 2:
			writes++
			writeLines(t, log, lines[third*writes:min(third*(writes+1), len(lines))])
			if writes == 2 {
				writeLines(t, log, lines[third*3:])
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mismatch {
		t.Error(m)
	}
	if changed < 2 {
		t.Fatalf("%d rounds changed the findings: the test needs two at least", changed)
	}
	if n := changes(); n != changed {
		t.Errorf("the journal names %d changes once the follow ended, want %d", n, changed)
	}
	for id, n := range createdInJournal(t, w) {
		if n != 1 {
			t.Errorf("finding %s journaled created %d times", id, n)
		}
	}
}
