package incident

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/ingest"
)

// A ledger and a proxy log followed side by side, the proxy's lines a
// round behind the ledger's (a proxy that flushes its log late): each
// round the proxy writes lines earlier than ledger lines already read.
// The follow holds the ledger's lines until the proxy has gone past them,
// so no round replays, and the answer at the end is the one-shot answer.
// Without the watermark the third round replays the whole incident.
func TestFollowHoldsCrossingInputsForOrder(t *testing.T) {
	sample := filepath.Join("..", "sample-incidents", "egress-probe-exfil")
	ledger := readLines(t, filepath.Join(sample, "ledger.jsonl"))
	proxy := readLines(t, filepath.Join(sample, "proxy", "access.log"))
	first, last := ledgerTime(t, ledger[0]), ledgerTime(t, ledger[len(ledger)-1])
	const steps = 5
	cuts := make([]time.Time, steps+1) // cuts[steps] is past every line
	for i := range steps {
		cuts[i] = first.Add(time.Duration(i+1) * last.Sub(first) / (steps + 1))
	}
	cuts[steps] = last.Add(24 * time.Hour)
	// the lines of each file in [from, to)
	part := func(lines []string, at func(*testing.T, string) time.Time, from, to time.Time) []string {
		var out []string
		for _, l := range lines {
			if tm := at(t, l); !tm.Before(from) && tm.Before(to) {
				out = append(out, l)
			}
		}
		return out
	}
	dir := t.TempDir()
	lf, pf := filepath.Join(dir, "ledger.jsonl"), filepath.Join(dir, "access.log")
	writeLines(t, lf, part(ledger, ledgerTime, time.Time{}, cuts[1]))
	writeLines(t, pf, part(proxy, squidTime, time.Time{}, cuts[0]))
	w, ctx, cancel, opt, acc := followed(t)
	defer w.Close()
	defer cancel()
	// rounds are quick here; a slow machine must not reach the hold
	if err := os.WriteFile(filepath.Join(w.Dir, "cordon.yaml"), []byte("follow:\n  hold: 30s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	appended, rounds, keptPartial := 0, 0, 0
	err := w.Follow(ctx, []string{lf, pf}, opt, time.Millisecond, func([]ingest.FileResult) {
		rounds++
		// while events are held, the kept answer does not claim to be of
		// the index: a reader after a crash here runs the detectors again
		if r := *acc; len(r) > 0 && r[len(r)-1].Held > 0 {
			k, err := readKept(w.Dir, func(resultMeta) bool { return false })
			if err != nil && !errors.Is(err, errOtherMeta) {
				t.Fatal(err)
			}
			if meta, _ := w.resultMeta(); k.Meta == meta || k.Meta.HeldForOrder != int64(r[len(r)-1].Held) {
				t.Errorf("round %d held %d events and kept its answer as of the index (%+v)", rounds, r[len(r)-1].Held, k.Meta)
			}
			keptPartial++
		}
		switch {
		case rounds < steps:
			// the ledger a step ahead of the proxy
			l := part(ledger, ledgerTime, cuts[rounds], cuts[rounds+1])
			p := part(proxy, squidTime, cuts[rounds-1], cuts[rounds])
			writeLines(t, lf, l)
			writeLines(t, pf, p)
			appended += len(l) + len(p)
		case rounds == steps:
			p := part(proxy, squidTime, cuts[steps-1], cuts[steps])
			writeLines(t, pf, p)
			appended += len(p)
		default:
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	got := *acc
	added, held := 0, 0
	for i, r := range got[1:] {
		if r.Replayed != "" {
			t.Errorf("round %d replayed: %s\n%+v", i+2, r.Replayed, got)
		}
		added += r.Added
		held = max(held, r.Held)
	}
	// the first round's replay holds what the proxy has not gone past
	if added != appended+got[0].Held {
		t.Errorf("%d events added after the first round, %d appended and %d held by it\n%+v", added, appended, got[0].Held, got)
	}
	if held == 0 || keptPartial == 0 {
		t.Errorf("no round held an event for order: the test proves nothing\n%+v", got)
	}
	if last := got[len(got)-1]; last.Held != 0 {
		t.Errorf("the follow ended with %d events held: %+v", last.Held, last)
	}
	sameAsOneShot(t, w, "after the crossing inputs")
}

// The watermark: the least of the inputs heard from within Hold, each
// less its lateness (a format's before its source's); an input quiet for
// Hold is not waited for; past Hold only the latest instant of an input
// still written waits; the follow's end waits for nothing.
func TestFollowWatermark(t *testing.T) {
	at := func(s int) time.Time { return time.Date(2026, 7, 21, 10, 0, s, 0, time.UTC) }
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	cfg := FollowConfig{Lateness: map[string]time.Duration{"squid": 2 * time.Second, "proxy": 5 * time.Second, "sensor": time.Second}, Hold: time.Second}
	if err := cfg.check(); err != nil {
		t.Fatal(err)
	}
	m := newFollowMarks(cfg)
	if _, bounded, _ := m.watermark(now); bounded {
		t.Fatal("bounded before any input was heard")
	}
	m.observe([]ingest.FileResult{
		{Path: "ledger.jsonl", Format: "cordon-ledger", Events: 3, Last: at(10)},
		{Path: "access.log", Format: "squid", Events: 2, Last: at(9)},
		{Path: "falco.jsonl", Format: "falco", Events: 1, Last: at(12)},
		{Path: "empty.log", Format: "envoy", Events: 0},
	}, now)
	check := func(when string, now time.Time, want time.Time, wantBy string) {
		t.Helper()
		mark, bounded, by := m.watermark(now)
		switch {
		case want.IsZero() && bounded:
			t.Errorf("%s: bounded at %s by %s, want every event taken", when, mark, by)
		case !want.IsZero() && (!mark.Equal(want) || by != wantBy):
			t.Errorf("%s: watermark %s (%v) by %q, want %s by %q", when, mark, bounded, by, want, wantBy)
		}
	}
	// squid's own lateness (2s), not the proxy source's (5s)
	check("all heard", now, at(7), "access.log")
	m.observe([]ingest.FileResult{{Path: "access.log", Format: "squid", Events: 1, Last: at(20)}}, now.Add(300*time.Millisecond))
	check("the proxy went past", now.Add(400*time.Millisecond), at(10), "ledger.jsonl")
	// the ledger and falco are quiet for the hold: not waited for
	check("the ledger quiet", now.Add(1100*time.Millisecond), at(18), "access.log")
	m.held(5, at(18), at(20), now.Add(1100*time.Millisecond))
	m.held(7, at(19), at(21), now.Add(1200*time.Millisecond)) // still the same wait: some held before still are
	check("held under the hold", now.Add(1250*time.Millisecond), at(18), "access.log")
	check("held past the hold", now.Add(2100*time.Millisecond), time.Time{}, "")
	// past the hold while the proxy is still written: its lateness is
	// not waited for, its latest instant is (a round that takes longer
	// than the hold is no sign the input went quiet)
	m.observe([]ingest.FileResult{{Path: "access.log", Format: "squid", Events: 1, Last: at(20)}}, now.Add(2050*time.Millisecond))
	check("held past the hold, the proxy still written", now.Add(2100*time.Millisecond), at(20), "access.log")
	m.held(0, time.Time{}, time.Time{}, now.Add(2200*time.Millisecond))
	// events held all after those held before: a new wait
	m.held(2, at(30), at(31), now.Add(2200*time.Millisecond))
	m.held(3, at(32), at(33), now.Add(3000*time.Millisecond))
	if !m.heldSince.Equal(now.Add(3000 * time.Millisecond)) {
		t.Errorf("held since %s, want the round that took every event held before", m.heldSince)
	}
	m.held(3, time.Time{}, time.Time{}, now.Add(3500*time.Millisecond)) // not known which: the wait goes on
	if !m.heldSince.Equal(now.Add(3000 * time.Millisecond)) {
		t.Errorf("held since %s after a round that did not say what it held", m.heldSince)
	}
	m.held(0, time.Time{}, time.Time{}, now.Add(3600*time.Millisecond))
	m.observe([]ingest.FileResult{{Path: "access.log", Format: "squid", Events: 1, Last: at(21)}}, now.Add(2300*time.Millisecond))
	check("waiting again", now.Add(2300*time.Millisecond), at(19), "access.log")
	m.done = true
	check("the follow ends", now.Add(2300*time.Millisecond), time.Time{}, "")

	for _, bad := range []FollowConfig{
		{Hold: -time.Second},
		{Lateness: map[string]time.Duration{"squid": -time.Second}},
		{Lateness: map[string]time.Duration{"sqiud": time.Second}},
	} {
		if err := bad.check(); err == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
}

// cordon.yaml's follow: is read and checked with the rest.
func TestFollowConfigInCordonYAML(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, configFile), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("follow:\n  hold: 2s\n  lateness:\n    envoy: 30s\n    sensor: 1s\n")
	c, err := LoadConfig(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if c.Follow.hold() != 2*time.Second || c.Follow.lateness("envoy") != 30*time.Second || c.Follow.lateness("falco") != time.Second || c.Follow.lateness("squid") != 0 {
		t.Errorf("follow read as %+v", c.Follow)
	}
	write("follow:\n  lateness:\n    nginx: 1s\n")
	if _, err := LoadConfig(dir, false); err == nil || !strings.Contains(err.Error(), "nginx") {
		t.Errorf("an unknown format's lateness: %v", err)
	}
}

// Lines of one instant are ordered by id, which is no order a writer
// keeps: a round that took the first lines of an instant would find the
// next round's lines of that instant earlier than its last, and replay
// the whole incident. A follow holds the lines of the latest instant
// until a later one comes (or Hold passes), so rounds that split an
// instant replay nothing, and the answer is the one-shot answer.
func TestFollowHoldsTheLastInstant(t *testing.T) {
	session := `{"v":1,"ts":"2026-08-11T09:00:00.000Z","type":"session_start","run":"r-1","agent":"agent-1","session":"s-1","model":"m","objective":"o","sandbox":{"id":"sb-1","ip":"10.0.0.1"}}`
	call := func(at string, n int) string {
		return fmt.Sprintf(`{"v":1,"ts":"%s","type":"tool_call","run":"r-1","agent":"agent-1","session":"s-1","call_id":"c-%d","tool":"bash","args":{"cmd":"curl -s https://example.com/%d"}}`, at, n, n)
	}
	instant := func(at string, from int) []string {
		var out []string
		for i := from; i < from+20; i++ {
			out = append(out, call(at, i))
		}
		return out
	}
	lf := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, lf, append([]string{session}, instant("2026-08-11T09:00:01.000Z", 0)...))
	w, ctx, cancel, opt, acc := followed(t)
	defer w.Close()
	defer cancel()
	if err := os.WriteFile(filepath.Join(w.Dir, "cordon.yaml"), []byte("follow:\n  hold: 30s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rounds := 0
	err := w.Follow(ctx, []string{lf}, opt, time.Millisecond, func([]ingest.FileResult) {
		switch rounds++; rounds {
		case 1:
			writeLines(t, lf, instant("2026-08-11T09:00:01.000Z", 20)) // the same instant
		case 2:
			writeLines(t, lf, instant("2026-08-11T09:00:02.000Z", 40))
		default:
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	got := *acc
	added := 0
	for i, r := range got {
		if i > 0 && r.Replayed != "" {
			t.Errorf("round %d replayed: %s\n%+v", i+1, r.Replayed, got)
		}
		added += r.Added
	}
	if added != 61 || got[len(got)-1].Held != 0 {
		t.Errorf("%d events added, %d held at the end, want 61 and none\n%+v", added, got[len(got)-1].Held, got)
	}
	if got[0].Held == 0 {
		t.Errorf("the first round held nothing of its last instant: %+v", got[0])
	}
	sameAsOneShot(t, w, "after the instants")
}
