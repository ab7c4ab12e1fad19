package incident

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
)

// A follow keeps its detectors' pass: lines appended in time order are
// added to it (no replay), a line earlier than what it holds makes it
// replay and says why, and the answer after every round is the one a
// one-shot run over the same evidence gives.
func TestFollowKeepsItsPass(t *testing.T) {
	lines := readLines(t, filepath.Join("..", "sample-incidents", "credential-theft", "ledger.jsonl"))
	half := len(lines) / 2
	log := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, log, lines[:half])
	late := strings.Replace(lines[4], `"call_id":"c-101"`, `"call_id":"c-late"`, 1)
	if late == lines[4] {
		t.Fatal("the late line is the line it copies")
	}
	w, ctx, cancel, opt, acc := followed(t)
	defer w.Close()
	defer cancel()
	rounds := 0
	err := w.Follow(ctx, []string{log}, opt, time.Millisecond, func([]ingest.FileResult) {
		rounds++
		switch rounds {
		case 1:
			writeLines(t, log, lines[half:])
		case 2:
			// what round 2 answers is what a one-shot run gives
			sameAsOneShot(t, w, "after the appended half")
			writeLines(t, log, []string{late})
		case 3:
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	got := *acc
	if len(got) < 3 {
		t.Fatalf("%d rounds detected, want 3", len(got))
	}
	// each round holds the events of the ledger's latest instant until a
	// later one comes (the follow's end takes them)
	if got[0].Replayed != "the follow began" || got[0].Added+got[0].Held != half {
		t.Errorf("round 1: %+v, want a replay of %d events as the follow began", got[0], half)
	}
	if got[1].Replayed != "" || got[1].Added != len(lines)-half+got[0].Held-got[1].Held || got[1].Read != "the ingest" {
		t.Errorf("round 2: %+v, want the %d appended events added without a replay", got[1], len(lines)-half)
	}
	if got[1].Change.Total == 0 {
		t.Errorf("round 2 found nothing in the whole ledger: %+v", got[1])
	}
	if !strings.Contains(got[2].Replayed, "earlier than the last one the detectors took") || got[2].Added+got[2].Held != len(lines)+1 {
		t.Errorf("round 3: %+v, want a replay of every event for a late one", got[2])
	}
	sameAsOneShot(t, w, "after the late line")
	if n := w.DetectorRuns(); n != 2 {
		t.Errorf("%d passes over the evidence, want 2 (the start and the late line)", n)
	}
	// while the follower holds the index, another reads its kept answer
	total := got[len(got)-1].Change.Total
	h, err := OpenHeld(w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := h.CachedFindings(context.Background())
	if err != nil || len(fs) != total || h.DetectorRuns() != 0 {
		t.Errorf("held: %d findings (%v) after %d passes, want the kept %d", len(fs), err, h.DetectorRuns(), total)
	}
	if _, err := h.Assessment(context.Background()); err != nil {
		t.Errorf("held: the Assessment: %v", err)
	}
	if _, err := h.Search(context.Background(), evidence.Request{Query: evidence.All()}); !errors.Is(err, ErrHeld) {
		t.Errorf("held: a search: %v, want ErrHeld", err)
	}
	h.Close()
	// the next process reads the kept answer
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fs, err = r.CachedFindings(context.Background())
	if err != nil || len(fs) != total || r.DetectorRuns() != 0 {
		t.Errorf("the next process: %d findings (%v) after %d passes, want the kept %d", len(fs), err, r.DetectorRuns(), total)
	}
}

// Following a ledger and a proxy log cut at one time, the second halves
// are added in order, with the session records among them, unless they
// attribute stored events again (then the pass replays); either way the
// kept answer is the one-shot answer, and every event is attributed as an
// ingest of the two files at once attributes it.
func TestFollowTwoSourcesInOrder(t *testing.T) {
	added := 0
	for _, name := range []string{"credential-theft", "egress-probe-exfil", "persistence-after-kill", "shared-volume-token"} {
		// with a replay that keeps in hand fewer events than it holds,
		// the round after it reads them from the index
		keep := maxPending
		maxPending = 2
		followHalves(t, name)
		maxPending = keep
		r := followHalves(t, name)
		t.Logf("%s: %+v", name, r)
		if r.Replayed == "" {
			added++
		} else if r.Replayed != "stored events were attributed again" {
			t.Errorf("%s: replayed because %s", name, r.Replayed)
		}
	}
	if added == 0 {
		t.Error("no sample's second half was added without a replay")
	}
}

// followHalves follows a sample's ledger and proxy log, cut at the time of
// the ledger's middle line, then appends the rest; it returns the second
// round's account.
func followHalves(t *testing.T, name string) LiveRound {
	sample := filepath.Join("..", "sample-incidents", name)
	ledger := readLines(t, filepath.Join(sample, "ledger.jsonl"))
	proxy := readLines(t, filepath.Join(sample, "proxy", "access.log"))
	cut := ledgerTime(t, ledger[len(ledger)/2])
	lcut := slices.IndexFunc(ledger, func(l string) bool { return !ledgerTime(t, l).Before(cut) })
	pcut := slices.IndexFunc(proxy, func(l string) bool { return !squidTime(t, l).Before(cut) })
	if lcut <= 0 || pcut <= 0 {
		t.Fatalf("%s: cut at %s: ledger %d, proxy %d", name, cut, lcut, pcut)
	}
	dir := t.TempDir()
	lf, pf := filepath.Join(dir, "ledger.jsonl"), filepath.Join(dir, "access.log")
	writeLines(t, lf, ledger[:lcut])
	writeLines(t, pf, proxy[:pcut])
	w, ctx, cancel, opt, acc := followed(t)
	defer w.Close()
	defer cancel()
	rounds := 0
	err := w.Follow(ctx, []string{lf, pf}, opt, time.Millisecond, func([]ingest.FileResult) {
		switch rounds++; rounds {
		case 1:
			writeLines(t, lf, ledger[lcut:])
			writeLines(t, pf, proxy[pcut:])
		case 2:
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	got := *acc
	want := len(ledger) - lcut + len(proxy) - pcut
	// the second round adds what both inputs have gone past (and what
	// the first held for order); what one input wrote beyond the other's
	// last event is held for order and added as the follow ends
	added := 0
	for _, r := range got[1:] {
		added += r.Added
	}
	switch {
	case len(got) < 2 || len(got) > 3:
		t.Fatalf("%s: rounds %+v, want two (and one that adds what was held)", name, got)
	case got[1].Replayed != "":
	case added != want+got[0].Held || (got[1].Held > 0) != (len(got) == 3):
		t.Fatalf("%s: rounds %+v, want the second and the last to add %d events and the %d held", name, got, want, got[0].Held)
	case len(got) == 3 && (got[2].Added != got[1].Held || got[2].Held != 0 || got[2].Replayed != ""):
		t.Fatalf("%s: rounds %+v, want the follow's end to add the %d events held", name, got, got[1].Held)
	case len(got) == 3 && got[2].Read != "the ingest":
		// the round before had the events it held in hand
		t.Fatalf("%s: rounds %+v, want the follow's end to add what the round before held, from its hand", name, got)
	case got[0].Held > maxPending && got[1].Read != "the index (the pass holds back events only the index has)":
		t.Fatalf("%s: rounds %+v, want the second round to read the index for what a replay held past %d", name, got, maxPending)
	case got[0].Held <= maxPending && got[1].Read != "the ingest":
		// what the first round's replay held it keeps in hand too
		t.Fatalf("%s: rounds %+v, want the second round's events from the ingest's hand", name, got)
	}
	sameAsOneShot(t, w, name+" after both halves")
	sameAttribution(t, w, []string{lf, pf}, name+" after both halves")
	if got[0].Held == 0 || got[1].Replayed != "" && got[1].Held == 0 {
		// a replay that held events for order wrote a log of every
		// event, which the rounds after it cannot extend
		sameFromLog(t, w, name+" after both halves")
	}
	return got[1]
}

// sameAttribution compares each event w stores (its agent, attribution
// and tags) with what an ingest of the files, whole and at once, stores.
func sameAttribution(t *testing.T, w *Workspace, files []string, when string) {
	t.Helper()
	once, err := Create(filepath.Join(t.TempDir(), "at-once"))
	if err != nil {
		t.Fatal(err)
	}
	defer once.Close()
	if _, err := once.Ingest(context.Background(), files, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	got, want := storedAttributions(t, w), storedAttributions(t, once)
	if len(got) != len(want) {
		t.Errorf("%s: %d events stored, %d at once", when, len(got), len(want))
	}
	n := 0
	for id, a := range want {
		if got[id] != a && n < 5 {
			n++
			t.Errorf("%s: event %s is %q, at once %q", when, id, got[id], a)
		}
	}
}

// storedAttributions is each stored event's agent, attribution and
// tags, by id.
func storedAttributions(t testing.TB, w *Workspace) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := evidence.StoreSource{Store: w.store}.Each(context.Background(), evidence.All(), func(ev evidence.Event) error {
		tags := slices.Clone(ev.Tags)
		slices.Sort(tags)
		out[ev.ID] = ev.Agent + " via " + ev.AttributedVia + " " + strings.Join(tags, ",")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameFromLog checks that the replay log holds the index's events after a
// follow (extended by a round added in order, written anew by a replay),
// and that a replay from it gives the answer from the index.
func sameFromLog(t *testing.T, w *Workspace, when string) {
	t.Helper()
	if w.loggedKey() == "" {
		t.Fatalf("%s: the replay log is not of the index", when)
	}
	ctx := context.Background()
	rules, err := w.rules()
	if err != nil {
		t.Fatal(err)
	}
	opt := FindingsOptions{Rules: rules, Secrets: w.scanRedactor()}
	fromLog, err := w.ScanWith(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if from := w.ReplayedFrom(); from != "the replay log" {
		t.Fatalf("%s: the replay read %s", when, from)
	}
	fromIndex, err := Scan(ctx, w.store, opt)
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, when, fromLog, fromIndex)
}

func ledgerTime(t *testing.T, line string) time.Time {
	t.Helper()
	_, rest, _ := strings.Cut(line, `"ts":"`)
	ts, _, _ := strings.Cut(rest, `"`)
	at, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return at
}

func squidTime(t *testing.T, line string) time.Time {
	t.Helper()
	f, _, _ := strings.Cut(line, " ")
	sec, frac, _ := strings.Cut(f, ".")
	s, err1 := strconv.ParseInt(sec, 10, 64)
	ms, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s: no time", line)
	}
	return time.Unix(s, ms*int64(time.Millisecond)).UTC()
}

// followed is a new workspace to follow into, the follow's context, and
// options whose Detectors collect each round's account in *got.
func followed(t *testing.T) (*Workspace, context.Context, context.CancelFunc, IngestOptions, *[]LiveRound) {
	t.Helper()
	w, err := Create(filepath.Join(t.TempDir(), "case"))
	if err != nil {
		t.Fatal(err)
	}
	// round by round: what a round's callback appends is the next
	// round's (TestFollowDetectsBesideTheNextRound follows as a console does)
	w.detectInStep = true
	ctx, cancel := context.WithCancel(context.Background())
	got := &[]LiveRound{}
	opt := IngestOptions{Detectors: func(r LiveRound, err error) {
		if err != nil {
			t.Errorf("round %d: %v", len(*got)+1, err)
		}
		*got = append(*got, r)
	}}
	return w, ctx, cancel, opt, got
}

// sameAsOneShot compares the answer the follow keeps with a run over the
// stored evidence from scratch.
func sameAsOneShot(t *testing.T, w *Workspace, when string) {
	t.Helper()
	rules, err := w.rules()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Scan(context.Background(), w.store, FindingsOptions{Rules: rules, Secrets: w.scanRedactor()})
	if err != nil {
		t.Fatal(err)
	}
	w.findingsMu.Lock()
	kept := w.scanned
	w.findingsMu.Unlock()
	a, b := kept.Findings, want.Findings
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%s: %d findings kept, %d from scratch", when, len(a), len(b))
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Explanation != b[i].Explanation || !slices.Equal(a[i].Events, b[i].Events) {
			t.Errorf("%s: finding %d %s %q, from scratch %s %q", when, i, a[i].ID, a[i].Explanation, b[i].ID, b[i].Explanation)
		}
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// An ingest killed after it stored a ledger that concerns events stored
// before, and before it attributed them again: the ledger is read to its
// end, so the next ingest reads none of it, and it is the file the ingest
// wrote first (attributePending) that has it attribute them again.
func TestKilledBeforeAttributingAgain(t *testing.T) {
	sample := filepath.Join("..", "sample-incidents", "credential-theft")
	dir := t.TempDir()
	w, err := Create(filepath.Join(dir, "case"))
	if err != nil {
		t.Fatal(err)
	}
	others := []string{filepath.Join(sample, "proxy"), filepath.Join(sample, "sensor")}
	ledger := filepath.Join(sample, "ledger.jsonl")
	ctx := context.Background()
	if _, err := w.Ingest(ctx, others, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	killedAfterRun = func() error { return errors.New("killed") }
	_, err = w.Ingest(ctx, []string{ledger}, IngestOptions{})
	killedAfterRun = nil
	if err == nil {
		t.Fatal("the kill did not stop the ingest")
	}
	if pendingSince(w.Dir).IsZero() {
		t.Fatal("the ingest stored the ledger without writing down from when to attribute again")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w, err = Create(filepath.Join(dir, "case")); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res, err := w.Ingest(ctx, []string{ledger}, IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].New != 0 {
		t.Fatalf("the ledger again: %d new events, want none (read to its end before the kill)", res[0].New)
	}
	sameAttribution(t, w, append(others, ledger), "after the kill and the ingest again")
	if !pendingSince(w.Dir).IsZero() {
		t.Error("the file that says what to attribute again outlived the attribution")
	}
}
