package detect_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// burstyDay is two hours of three agents at a call a minute, with bursts
// of a's and b's (one of them three windows long, one past the 200 events
// a window keeps); some ids are not of the shape cordon makes.
func burstyDay() []evidence.Event {
	t0 := time.Date(2026, 9, 3, 9, 0, 0, 0, time.UTC)
	var evs []evidence.Event
	n := 0
	call := func(agent string, at time.Time) {
		n++
		id := fmt.Sprintf("%016x", uint64(n)*0x9e3779b97f4a7c15)
		if n%7 == 0 {
			id = fmt.Sprintf("e%d", n)
		}
		evs = append(evs, evidence.Event{ID: id, Time: at, Source: evidence.SourceLedger,
			Kind: evidence.KindToolCall, Agent: agent, Tool: "bash", CallID: fmt.Sprintf("c%d", n)})
	}
	burst := func(agent string, from time.Time, count int, every time.Duration) {
		for i := range count {
			call(agent, from.Add(time.Duration(i)*every))
		}
	}
	for i := range 120 {
		for j, agent := range []string{"a", "b", "c"} {
			at := t0.Add(time.Duration(i)*time.Minute + time.Duration(j)*time.Second)
			call(agent, at)
			switch {
			case agent == "a" && i == 30:
				burst(agent, at.Add(3*time.Second), 90, 300*time.Millisecond) // three windows
			case agent == "a" && i == 75:
				burst(agent, at.Add(3*time.Second), 260, 20*time.Millisecond) // more than a window keeps
			case agent == "b" && i%20 == 10:
				burst(agent, at.Add(3*time.Second), 45, 100*time.Millisecond)
			}
		}
	}
	slices.SortFunc(evs, func(x, y evidence.Event) int { return detect.Compare(&x, &y) })
	return evs
}

// passSettingAside starts a pass of rules whose rate rules set every
// window's events aside as it closes (detect.SetRateAside).
func passSettingAside(t *testing.T, rules []detect.Rule) (p *detect.Pass, written func() int64, closeFiles func()) {
	t.Helper()
	p, err := (&detect.Engine{Rules: rules}).Start(context.Background(), detect.NewMemSource(nil))
	if err != nil {
		t.Fatal(err)
	}
	written, closeFiles = detect.SetRateAside(p, 0)
	return p, written, closeFiles
}

// A rate rule whose windows' events are set aside as they close, all of
// them, finds what one that keeps them in memory finds: the same ids,
// explanations and cited events.
func TestRateSetAsideFindsTheSame(t *testing.T) {
	evs := burstyDay()
	rate := builtinRules(t, "action-rate")
	_, want := passOver(t, rate, nil, evs, 0)
	if len(want) < 3 {
		t.Fatalf("%d findings: the day does not test the rate rule", len(want))
	}
	for _, every := range []int64{0, 97} { // asked at the end, and along the way
		p, written, _ := passSettingAside(t, rate)
		for i := range evs {
			if err := p.Add(&evs[i]); err != nil {
				t.Fatal(err)
			}
			if every > 0 && p.Events()%every == 0 {
				p.Findings()
			}
		}
		sameFindings(t, fmt.Sprintf("set aside, asked every %d", every), p.Findings(), want)
		// every event cited is of a window set aside when it closed
		cited := 0
		for _, f := range want {
			cited += len(f.Events)
		}
		if got := written(); got < int64(16*cited) {
			t.Errorf("asked every %d: %d bytes set aside, want the bursts' events", every, got)
		}
	}
}

// Events set aside that cannot be read back are not cited, and the
// finding says so; it is not dropped.
func TestRateSetAsideUnreadIsSaid(t *testing.T) {
	evs := burstyDay()
	rate := builtinRules(t, "action-rate")
	_, want := passOver(t, rate, nil, evs, 0)
	p, _, closeFiles := passSettingAside(t, rate)
	for i := range evs {
		if err := p.Add(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	closeFiles()
	got := p.Findings()
	if len(got) != len(want) {
		t.Fatalf("%d findings, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if !strings.Contains(g.Explanation, "Not all of its events are cited: reading back") ||
			len(g.Events) >= len(w.Events) {
			t.Errorf("finding %d: %q citing %d events, want it to say it cites fewer than %d", i, g.Explanation, len(g.Events), len(w.Events))
		}
		// dated by its windows, which hold the events it would cite
		if g.Agent != w.Agent || g.Start.After(w.Start) || g.End.Before(w.End) || g.End.Sub(g.Start) > w.End.Sub(w.Start)+20*time.Second {
			t.Errorf("finding %d: %s from %s to %s, want %s around %s to %s", i, g.Agent, g.Start, g.End, w.Agent, w.Start, w.End)
		}
	}
}
