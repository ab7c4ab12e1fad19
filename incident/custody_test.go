package incident_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/journal"
)

func custodyLine(i int) string {
	return fmt.Sprintf(`{"v":1,"ts":"2026-07-21T10:%02d:%02d Z","type":"tool_call","agent":"agent-1","call_id":"c-%d","tool":"bash","args":{"cmd":"echo %d"}}`,
		i/60%60, i%60, i, i)
}

func appendLines(t *testing.T, path string, from, to int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := from; i < to; i++ {
		fmt.Fprintln(f, strings.Replace(custodyLine(i), " Z", "Z", 1))
	}
}

func receipts(t *testing.T, ws *incident.Workspace) []incident.Receipt {
	t.Helper()
	rs, _, err := ws.Receipts()
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func status(t *testing.T, ws *incident.Workspace) (map[string]incident.EvidenceStatus, error) {
	t.Helper()
	checks, err := ws.VerifyEvidence()
	out := map[string]incident.EvidenceStatus{}
	for _, c := range checks {
		if k := filepath.Base(c.Receipt.Resolved); c.Status != incident.EvidenceReplaced {
			out[k] = c.Status
		}
	}
	return out, err
}

// Every file ingested is journaled once per ingest that read something
// new, by whom, with its digest; `evidence verify` tells an edited, a cut,
// a grown and a deleted file apart.
func TestEvidenceReceivedAndVerified(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	a, b, c, d := filepath.Join(src, "a.jsonl"), filepath.Join(src, "b.jsonl"), filepath.Join(src, "c.jsonl"), filepath.Join(src, "d.jsonl")
	for _, p := range []string{a, b, c, d} {
		appendLines(t, p, 0, 20)
	}
	ws, err := incident.Create(filepath.Join(t.TempDir(), "case"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	who := journal.Actor{Name: "pdiaz", Via: journal.ViaCLI}
	ingestAll := func() {
		t.Helper()
		if _, err := ws.Ingest(ctx, []string{src}, incident.IngestOptions{Actor: who}); err != nil {
			t.Fatal(err)
		}
	}
	ingestAll()
	rs := receipts(t, ws)
	if len(rs) != 4 || rs[0].Records != 20 || rs[0].Format != "cordon-ledger" || !rs[0].ToEnd || rs[0].First.IsZero() {
		t.Fatalf("receipts after the first ingest: %+v", rs)
	}
	es, _ := ws.JournalEntries()
	if es[0].Actor != who || !strings.Contains(es[0].Text, rs[0].SHA256) {
		t.Errorf("entry %+v", es[0])
	}
	// nothing new: nothing journaled
	ingestAll()
	if n := len(receipts(t, ws)); n != 4 {
		t.Errorf("a re-run that read nothing new journaled %d receipts in all, want 4", n)
	}
	// a file that grew is journaled again, with the whole file's digest
	appendLines(t, a, 20, 25)
	ingestAll()
	rs = receipts(t, ws)
	if len(rs) != 5 || filepath.Base(rs[4].Resolved) != "a.jsonl" || rs[4].Records != 5 || rs[4].ResumedAt == 0 || !rs[4].ToEnd {
		t.Fatalf("after a grew: %+v", rs[len(rs)-1])
	}
	if st, err := status(t, ws); err != nil || len(st) != 4 || st["a.jsonl"] != incident.EvidenceMatch {
		t.Fatalf("unchanged: %v %v", st, err)
	}

	// now tamper: edit one byte of b, cut c, append to a, delete d
	raw, _ := os.ReadFile(b)
	raw[len(raw)/2] ^= 1
	os.WriteFile(b, raw, 0o644)
	raw, _ = os.ReadFile(c)
	os.WriteFile(c, raw[:len(raw)/2], 0o644)
	appendLines(t, a, 25, 26)
	os.Remove(d)
	st, err := status(t, ws)
	if !errors.Is(err, incident.ErrEvidenceChanged) {
		t.Errorf("verify: %v, want ErrEvidenceChanged", err)
	}
	// a receipt rewritten to the edited file's digest is not believed: the
	// journal no longer verifies, and verify refuses rather than compare
	jpath := ws.JournalPath()
	jb, _ := os.ReadFile(jpath)
	os.WriteFile(jpath, []byte(strings.Replace(string(jb), `"records":20`, `"records":21`, 1)), 0o600)
	if _, err := ws.VerifyEvidence(); !errors.Is(err, journal.ErrTampered) {
		t.Errorf("verify over an edited journal: %v, want ErrTampered", err)
	}
	os.WriteFile(jpath, jb, 0o600)
	want := map[string]incident.EvidenceStatus{"a.jsonl": incident.EvidenceGrew, "b.jsonl": incident.EvidenceChanged, "c.jsonl": incident.EvidenceChanged, "d.jsonl": incident.EvidenceGone}
	for k, v := range want {
		if st[k] != v {
			t.Errorf("%s: %s, want %s", k, st[k], v)
		}
	}
}

// A file replaced between two ingests (another file renamed over it) is
// journaled again, and verify says the first bytes received are no longer
// at the path, not only that the path matches its latest receipt.
func TestEvidenceVerifyNamesAReplacedFile(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	a := filepath.Join(src, "a.jsonl")
	appendLines(t, a, 0, 20)
	ws, err := incident.Create(filepath.Join(t.TempDir(), "case"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	who := journal.Actor{Name: "pdiaz", Via: journal.ViaCLI}
	if _, err := ws.Ingest(ctx, []string{a}, incident.IngestOptions{Actor: who}); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(src, "other.tmp")
	appendLines(t, other, 100, 130)
	if err := os.Rename(other, a); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Ingest(ctx, []string{a}, incident.IngestOptions{Actor: who}); err != nil {
		t.Fatal(err)
	}
	if n := len(receipts(t, ws)); n != 2 {
		t.Fatalf("%d receipts, want one per file that was at the path", n)
	}
	checks, err := ws.VerifyEvidence()
	if err != nil || len(checks) != 2 {
		t.Fatalf("verify: %+v, %v", checks, err)
	}
	if checks[0].Status != incident.EvidenceMatch {
		t.Errorf("the file now: %s, want match", checks[0].Status)
	}
	if checks[1].Status != incident.EvidenceReplaced || checks[1].Seq >= checks[0].Seq || !strings.Contains(checks[1].Detail, "replaced by another file") {
		t.Errorf("the first bytes received: %+v, want replaced by another file", checks[1])
	}

	// A byte edited in place (same file, same size) before lines are
	// appended is not a rotation: the index holds events of bytes that are
	// no longer there, and verify says changed.
	b := filepath.Join(src, "b.jsonl")
	appendLines(t, b, 0, 20)
	if _, err := ws.Ingest(ctx, []string{b}, incident.IngestOptions{Actor: who}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(b)
	i := strings.LastIndex(string(raw), "agent")
	raw[i] = 'A'
	os.WriteFile(b, raw, 0o644)
	appendLines(t, b, 20, 22)
	if _, err := ws.Ingest(ctx, []string{b}, incident.IngestOptions{Actor: who}); err != nil {
		t.Fatal(err)
	}
	checks, err = ws.VerifyEvidence()
	if !errors.Is(err, incident.ErrEvidenceChanged) {
		t.Fatalf("verify after an edit in place: %v, want ErrEvidenceChanged; %+v", err, checks)
	}
	edited := false
	for _, c := range checks {
		if filepath.Base(c.Receipt.Resolved) == "b.jsonl" && c.Status == incident.EvidenceChanged && strings.Contains(c.Detail, "edited in place") {
			edited = true
		}
	}
	if !edited {
		t.Errorf("no check says b.jsonl was edited in place: %+v", checks)
	}
}

// A followed file is journaled when it is first read, at once when it is
// rotated, and for lines appended at most once per GrowthEvery (here: at
// the follow's end), never once per poll.
func TestFollowJournalsGrowthNotPolls(t *testing.T) {
	src := t.TempDir()
	log := filepath.Join(src, "ledger.jsonl")
	appendLines(t, log, 0, 10)
	ws, err := incident.Create(filepath.Join(t.TempDir(), "case"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rounds := 0
	err = ws.Follow(ctx, []string{log}, incident.IngestOptions{}, time.Millisecond, func([]ingest.FileResult) {
		rounds++
		switch {
		case rounds <= 3:
			appendLines(t, log, 10*rounds, 10*rounds+10)
		case rounds == 4:
			if err := os.Rename(log, log+".1"); err != nil {
				t.Error(err)
			}
			appendLines(t, log, 100, 105)
		case rounds == 7:
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range receipts(t, ws) {
		got = append(got, fmt.Sprintf("%s:%d", filepath.Base(r.Resolved), r.Records))
	}
	// Round 1 reads 10 lines: the first receipt. Rounds 2-4 read 30 more,
	// which wait for GrowthEvery. Round 5 finds the rotation: the old file,
	// now ledger.jsonl.1, is read from its top (40 records, all already
	// indexed) and journaled whole; at ledger.jsonl another file begins, so
	// the 30 records that waited are journaled as the old file's last state
	// there, then the new file's 5 at once. The end finds nothing left.
	want := []string{"ledger.jsonl:10", "ledger.jsonl.1:40", "ledger.jsonl:30", "ledger.jsonl:5"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("receipts %v, want %v", got, want)
	}
}

// Growth that waited is journaled when the follow ends, counting every
// record read since the last entry.
func TestFollowJournalsWhatWaitedAtItsEnd(t *testing.T) {
	log := filepath.Join(t.TempDir(), "ledger.jsonl")
	appendLines(t, log, 0, 10)
	ws, err := incident.Create(filepath.Join(t.TempDir(), "case"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rounds := 0
	err = ws.Follow(ctx, []string{log}, incident.IngestOptions{}, time.Millisecond, func([]ingest.FileResult) {
		if rounds++; rounds <= 2 {
			appendLines(t, log, 10*rounds, 10*rounds+10)
		} else if rounds == 4 {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	rs := receipts(t, ws)
	if len(rs) != 2 || rs[0].Records != 10 || rs[1].Records != 20 || rs[1].Read <= rs[0].Read || !rs[1].ToEnd {
		t.Fatalf("receipts %+v, want 10 records then the 20 that waited", rs)
	}
	if st, err := status(t, ws); err != nil || st["ledger.jsonl"] != incident.EvidenceMatch {
		t.Errorf("verify: %v %v", st, err)
	}
}
