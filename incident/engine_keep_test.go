package incident

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/journal"
)

// keptEvidence is the evidence key of the answer kept in dir's
// engine/result.gob ("" when none is).
func keptEvidence(t *testing.T, dir string) string {
	t.Helper()
	k, err := readKept(dir, func(resultMeta) bool { return false })
	if err != nil && !errors.Is(err, errOtherMeta) {
		t.Fatal(err)
	}
	return k.Meta.Evidence
}

// currentEvidence is the evidence key of w's index as it is now.
func currentEvidence(t *testing.T, w *Workspace) string {
	t.Helper()
	meta, ok := w.resultMeta()
	if !ok {
		t.Fatal("no meta")
	}
	return meta.Evidence
}

// createdInJournal counts, per finding id, the findings_changed entries
// of w's journal that name it created.
func createdInJournal(t *testing.T, w *Workspace) map[string]int {
	t.Helper()
	entries, err := w.JournalEntries()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range entries {
		if e.Type != journal.EntryFindingsChanged {
			continue
		}
		var ch FindingsChange
		if err := json.Unmarshal(e.Payload, &ch); err != nil {
			t.Fatal(err)
		}
		for _, id := range ch.Created {
			out[id]++
		}
	}
	return out
}

// A follow whose answer is costly to keep keeps it only now and then:
// a busy round leaves it waiting (the file still holds an earlier round's
// answer, of other evidence, which no reader takes for the index's), the
// first quiet round keeps it, and so does the follow's end. The journal
// names every change as it comes, whatever was kept.
func TestFollowKeepsItsAnswerWhenItCan(t *testing.T) {
	lines := readLines(t, filepath.Join("..", "sample-incidents", "credential-theft", "ledger.jsonl"))
	third := len(lines) / 3
	log := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, log, lines[:third])
	w, ctx, cancel, opt, acc := followed(t)
	defer w.Close()
	defer cancel()
	// every keep after the first costs more than it may: only a quiet
	// round or the end keeps the answer waiting
	w.liveKept.cheap, w.liveKept.share = time.Nanosecond, 1<<30
	rounds, waited := 0, 0
	err := w.Follow(ctx, []string{log}, opt, time.Millisecond, func([]ingest.FileResult) {
		rounds++
		added := (*acc)[len(*acc)-1].Added
		switch kept := keptEvidence(t, w.Dir); {
		case rounds == 1:
			if kept != currentEvidence(t, w) {
				t.Errorf("round 1 did not keep its answer")
			}
			writeLines(t, log, lines[third:2*third])
		case added > 0:
			if kept == currentEvidence(t, w) {
				t.Errorf("round %d added %d events and kept its answer at once", rounds, added)
			}
			if waited++; waited == 2 {
				cancel() // the answer waiting is kept as the follow ends
			}
		default:
			if kept != currentEvidence(t, w) {
				t.Errorf("round %d added nothing and left the answer waiting", rounds)
			}
			writeLines(t, log, lines[2*third:])
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if waited != 2 {
		t.Fatalf("%d busy rounds after the first, want 2", waited)
	}
	if keptEvidence(t, w.Dir) != currentEvidence(t, w) {
		t.Error("the follow ended and its last answer is not kept")
	}
	sameAsOneShot(t, w, "at the end")
	for id, n := range createdInJournal(t, w) {
		if n != 1 {
			t.Errorf("finding %s journaled created %d times", id, n)
		}
	}
}

// The next process journals against the findings the journal last named,
// not against the answer kept: a follow stopped while its answer waited
// (its kept file a round behind the journal) makes the next journal no
// finding created a second time.
func TestJournalFromTheFindingsItNamed(t *testing.T) {
	lines := readLines(t, filepath.Join("..", "sample-incidents", "credential-theft", "ledger.jsonl"))
	half := len(lines) / 2
	log := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, log, lines[:half])
	w, ctx, cancel, opt, _ := followed(t)
	defer cancel()
	result := filepath.Join(w.Dir, engineDir, resultFile)
	var behind []byte
	rounds := 0
	err := w.Follow(ctx, []string{log}, opt, time.Millisecond, func([]ingest.FileResult) {
		switch rounds++; rounds {
		case 1:
			b, err := os.ReadFile(result)
			if err != nil {
				t.Fatal(err)
			}
			behind = b
			writeLines(t, log, lines[half:])
		case 2:
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	first := createdInJournal(t, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// as a crash leaves it: the answer of round 1 kept, round 2 journaled
	if err := os.WriteFile(result, behind, 0o600); err != nil {
		t.Fatal(err)
	}
	w2, err := Create(w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	var got []LiveRound
	opt.Detectors = func(r LiveRound, err error) {
		if err != nil {
			t.Errorf("the next process: %v", err)
		}
		got = append(got, r)
	}
	if err := w2.Follow(ctx2, []string{log}, opt, time.Millisecond, func([]ingest.FileResult) { cancel2() }); err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].Replayed != "the follow began" || !got[0].Change.Empty() {
		t.Errorf("the next process's first round: %+v, want a replay that changes nothing", got)
	}
	again := createdInJournal(t, w2)
	if len(first) == 0 || len(again) != len(first) {
		t.Errorf("%d findings journaled created, then %d", len(first), len(again))
	}
	for id, n := range again {
		if n != 1 {
			t.Errorf("finding %s journaled created %d times", id, n)
		}
	}
}

// A costly keep runs beside the rounds: the round that starts it ends
// before the answer is written (the file still holds an earlier round's),
// the next rounds go on while it is written, and the follow's end keeps
// the latest answer once it is done.
func TestFollowKeepsBesideItsRounds(t *testing.T) {
	lines := readLines(t, filepath.Join("..", "sample-incidents", "credential-theft", "ledger.jsonl"))
	third := len(lines) / 3
	log := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, log, lines[:third])
	w, ctx, cancel, opt, acc := followed(t)
	defer w.Close()
	defer cancel()
	// every keep after the first is costly, and may run at once
	w.liveKept.cheap, w.liveKept.share, w.liveKept.slow = time.Nanosecond, 0, 300*time.Millisecond
	running := func() bool {
		w.liveKept.mu.Lock()
		defer w.liveKept.mu.Unlock()
		return w.liveKept.running
	}
	rounds, beside := 0, 0
	err := w.Follow(ctx, []string{log}, opt, time.Millisecond, func([]ingest.FileResult) {
		rounds++
		added := (*acc)[len(*acc)-1].Added
		switch {
		case rounds == 1:
			if keptEvidence(t, w.Dir) != currentEvidence(t, w) {
				t.Errorf("round 1 did not keep its answer")
			}
			writeLines(t, log, lines[third:2*third])
		case added > 0 && beside == 0:
			if !running() {
				t.Fatalf("round %d added %d events and waited for its answer to be kept", rounds, added)
			}
			if keptEvidence(t, w.Dir) == currentEvidence(t, w) {
				t.Errorf("round %d: its answer is kept before the keep beside it waited", rounds)
			}
			beside++
			writeLines(t, log, lines[2*third:])
		case added > 0:
			cancel() // the keep beside may still run: the end waits for it
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if beside == 0 {
		t.Fatalf("no keep ran beside the rounds (%d rounds)", rounds)
	}
	if running() {
		t.Error("the follow ended with a keep still running")
	}
	if keptEvidence(t, w.Dir) != currentEvidence(t, w) {
		t.Error("the follow ended and its last answer is not kept")
	}
	sameAsOneShot(t, w, "at the end")
}
