package detect_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// data-exfiltration ends an episode as soon as a send comes more than the
// window (30 minutes) after the one before, and keeps its finding, not its
// sends: its findings are the episodes of all the sends, split at those
// gaps, whose largest view (bytes summed per source) reaches 10 MiB.
func TestDataOutEpisodesCloseAsTheyEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	t0 := time.Date(2026, 8, 11, 8, 0, 0, 0, time.UTC)
	evs := []evidence.Event{{ID: "s", Time: t0, Source: evidence.SourceLedger, Kind: evidence.KindSessionStart,
		Agent: "a", Session: "sess-a", Objective: "fix the tests in /work/app", EgressAllowlist: []string{"pypi.org"}}}
	type ep struct {
		dest string
		ids  []string
		by   map[string]int64
	}
	var want []ep
	for _, dest := range []string{"one.example", "two.example", "three.example"} {
		at := t0
		var cur *ep
		for n := range 400 {
			gap := time.Duration(1+r.IntN(300)) * time.Second
			switch r.IntN(25) {
			case 0:
				gap = time.Duration(31+r.IntN(60)) * time.Minute // past the window
			case 1:
				gap = time.Duration(16+r.IntN(13)) * time.Minute // long, within it
			}
			at = at.Add(gap)
			if cur == nil || gap > 30*time.Minute {
				want = append(want, ep{dest: dest, by: map[string]int64{}})
				cur = &want[len(want)-1]
			}
			src := []string{evidence.SourceProxy, evidence.SourceLedger}[r.IntN(2)]
			ev := evidence.Event{ID: fmt.Sprintf("%s-%03d", dest, n), Time: at, Source: src, Kind: evidence.KindNetRequest,
				Agent: "a", DstHost: dest, BytesOut: int64(1 + r.IntN(900_000)), Method: "PUT"}
			cur.ids = append(cur.ids, ev.ID)
			cur.by[src] += ev.BytesOut
			evs = append(evs, ev)
		}
	}
	slices.SortStableFunc(evs, func(x, y evidence.Event) int { return cmp.Or(x.Time.Compare(y.Time), cmp.Compare(x.ID, y.ID)) })
	var flagged []string
	for _, e := range want {
		if max(e.by[evidence.SourceProxy], e.by[evidence.SourceLedger]) >= 10<<20 {
			flagged = append(flagged, fmt.Sprint(e.ids))
		}
	}
	if len(flagged) < 3 || len(flagged) == len(want) {
		t.Fatalf("%d episodes, %d flagged: the sends do not test both", len(want), len(flagged))
	}
	exfil := builtinRules(t, "data-exfiltration")
	slices.Sort(flagged)
	// a last event a day after the sends: a sweep at it closes every
	// episode (the sends are not held), which no send of its own would
	last := evidence.Event{ID: "z", Time: evs[len(evs)-1].Time.Add(24 * time.Hour), Source: evidence.SourceLedger, Kind: evidence.KindToolCall, Agent: "b", Tool: "bash"}
	evs = append(evs, last)
	for _, every := range []int64{1 << 40, 1} { // and swept at every event
		detect.SweepEvery(t, every)
		p, _ := passOver(t, exfil, evs[:1], evs, 0)
		switch open := detect.OpenSends(p); {
		case every == 1 && open > 0:
			t.Errorf("swept at the last event, a day after the sends, %d sends are held open", open)
		case every > 1 && open == 0:
			t.Error("never swept, no send is held open: the test cannot tell a sweep closes them")
		}
		var got []string
		for _, f := range detect.RawFindings(p)[0] { // before the pass merges episodes
			got = append(got, fmt.Sprint(f.Events))
		}
		slices.Sort(got)
		if !slices.Equal(got, flagged) {
			t.Errorf("swept every %d events: %d findings, want %d:\n got %v\nwant %v", every, len(got), len(flagged), firsts(got), firsts(flagged))
		}
	}
}

// firsts are the first event of each list printed by fmt.
func firsts(lists []string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, strings.Fields(strings.Trim(l, "[]"))[0])
	}
	return out
}

// An episode's finding counts the largest source's bytes, of two sources
// that saw as much the one first by name; it names the methods in the
// order they came and the allowlist of its first send (its session did
// not admit the destination; the next session's wildcard admitted the
// later sends).
func TestDataOutFindingReadsItsSends(t *testing.T) {
	t0 := time.Date(2026, 8, 11, 8, 0, 0, 0, time.UTC)
	sessions := []evidence.Event{
		{ID: "s1", Time: t0.Add(-time.Minute), Source: evidence.SourceLedger, Kind: evidence.KindSessionStart,
			Agent: "a", Session: "sess-1", EgressAllowlist: []string{"pypi.org"}},
		{ID: "s2", Time: t0.Add(time.Minute), Source: evidence.SourceLedger, Kind: evidence.KindSessionStart,
			Agent: "a", Session: "sess-2", EgressAllowlist: []string{"*.example.com"}},
	}
	evs := slices.Clone(sessions)
	for i, s := range []struct {
		source, method string
		bytes          int64
	}{
		{evidence.SourceProxy, "PUT", 6 << 20}, // in the first session: not allowed
		{evidence.SourceLedger, "POST", 4 << 20},
		{evidence.SourceProxy, "PUT", 6 << 20},
		{evidence.SourceLedger, "PATCH", 8 << 20},
	} {
		at := t0.Add(time.Duration(i) * 2 * time.Minute)
		if i > 0 {
			at = at.Add(time.Minute) // within the second session
		}
		evs = append(evs, evidence.Event{ID: fmt.Sprintf("e%d", i), Time: at, Source: s.source, Kind: evidence.KindNetRequest,
			Agent: "a", DstHost: "drop.example.com", BytesOut: s.bytes, Method: s.method})
	}
	slices.SortStableFunc(evs, func(x, y evidence.Event) int { return x.Time.Compare(y.Time) })
	_, fs := passOver(t, builtinRules(t, "data-exfiltration"), sessions, evs, 0)
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1: %v", len(fs), fs)
	}
	want := "sent 12.0 MiB (12582912 bytes) to drop.example.com"
	for _, w := range []string{want, "allowlist: none", "via PUT, POST, PATCH", "counted by the ledger"} {
		if !strings.Contains(fs[0].Explanation, w) {
			t.Errorf("the finding says %q, want %q in it", fs[0].Explanation, w)
		}
	}
	if got := fs[0].Events; !slices.Equal(got, []string{"e0", "e1", "e2", "e3"}) {
		t.Errorf("the finding cites %v, want the four sends in order", got)
	}
}
