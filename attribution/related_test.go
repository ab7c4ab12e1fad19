package attribution_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

func TestRelatedEvents(t *testing.T) {
	ev, groups := relatedOfCall12(t)
	byWhy := map[string]attribution.Related{}
	for _, g := range groups {
		byWhy[g.Why] = g
		for _, e := range g.Events {
			if e.ID == ev.ID {
				t.Errorf("%s lists the event itself", g.Why)
			}
		}
	}
	call := byWhy["same call_id c-12"]
	if len(call.Events) != 2 || call.Events[0].Kind != "policy_decision" || call.Events[1].Kind != "tool_result" {
		t.Errorf("same call: %+v", call.Events)
	}
	near := byWhy["same agent agent-7 ±30s"]
	for _, e := range near.Events {
		if d := e.Time.Sub(ev.Time); d < -30*time.Second || d > 30*time.Second || e.Agent != "agent-7" {
			t.Errorf("±30s group holds %s at %v", e.Agent, e.Time)
		}
	}
	if len(near.Events) < 4 { // its decision and result, and the retry c-13 with its own
		t.Errorf("±30s group: %d events", len(near.Events))
	}
	if s := byWhy["same session s-19 (nearest)"]; len(s.Events) == 0 || s.Total < uint64(len(s.Events)) {
		t.Errorf("session group: %+v", s)
	}
}

func TestRelatedExecChildren(t *testing.T) {
	st := attributedStore(t, consoleFixture)
	ctx := context.Background()
	hits, err := st.Search(ctx, evidence.Request{Query: evidence.MustParse(`+format:tetragon +kind:proc_exec +cmdline:pip`), Limit: 10})
	if err != nil || len(hits.Events) == 0 {
		t.Fatalf("pip exec: %v", err)
	}
	groups, err := attribution.RelatedEvents(ctx, st, hits.Events[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if !g.Query.IsAll() && len(g.Events) > 0 && g.Why[:12] == "same exec_id" {
			return
		}
	}
	t.Errorf("no exec_id group in %+v", groups)
}

// TestRelatedUnattributed: a proxy record with no agent yet is linked to
// what the same source IP did at that moment.
func TestRelatedUnattributed(t *testing.T) {
	st := attributedStore(t, consoleFixture)
	ctx := context.Background()
	hits, err := st.Search(ctx, evidence.Request{Query: evidence.MustParse(`+format:squid +dst_host:httpbin.org`), Limit: 1})
	if err != nil || len(hits.Events) == 0 {
		t.Fatalf("squid deny: %v", err)
	}
	ev := hits.Events[0]
	if ev.Agent != "agent-7" {
		t.Fatalf("the fixture's squid line from 10.0.3.7 is attributed: %q", ev.Agent)
	}
	ev.Agent, ev.AttributedVia = "", "" // as if no session record named its IP
	groups, err := attribution.RelatedEvents(ctx, st, ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) == 0 || groups[0].Why != "same src_ip 10.0.3.7 ±30s" {
		t.Fatalf("groups %+v", groups)
	}
}

// TestRelatedRankedByLinkBeforeTime: around a tool call, the linked groups
// (call, process, session) come before the ±30 s window, and the window
// itself lists what shares the call, the process or the session before
// what is merely near, each by nearness (issue 33).
func TestRelatedRankedByLinkBeforeTime(t *testing.T) {
	ev, groups := relatedOfCall12(t)
	session, near := -1, -1
	for i, g := range groups {
		switch g.Why {
		case "same session s-19 (nearest)":
			session = i
		case "same agent agent-7 ±30s":
			near = i
		}
	}
	if session < 0 || near < 0 || session > near {
		t.Fatalf("the session group (%d) does not come before the ±30s window (%d)", session, near)
	}
	evs := groups[near].Events
	if len(evs) < 4 || attribution.LinkOf(ev, evs[0]) != attribution.LinkCall {
		t.Fatalf("the window does not start with the call's own events: %+v", evs)
	}
	dist := func(e evidence.Event) time.Duration { return max(e.Time.Sub(ev.Time), ev.Time.Sub(e.Time)) }
	for i := 1; i < len(evs); i++ {
		a, b := attribution.LinkOf(ev, evs[i-1]), attribution.LinkOf(ev, evs[i])
		if a > b || a == b && dist(evs[i-1]) > dist(evs[i]) {
			t.Errorf("event %d (%s, link %d, %v away) is listed after event %d (link %d, %v away)",
				i-1, evs[i-1].Kind, a, dist(evs[i-1]), i, b, dist(evs[i]))
		}
	}
}

func TestSortByLink(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	ev := evidence.Event{ID: "ev", Time: t0, CallID: "c-1", ExecID: "x-1", Session: "s-1"}
	evs := []evidence.Event{
		{ID: "far-none", Time: t0.Add(-20 * time.Second)},
		{ID: "near-none", Time: t0.Add(time.Second)},
		{ID: "session", Time: t0.Add(25 * time.Second), Session: "s-1"},
		{ID: "child", Time: t0.Add(29 * time.Second), ParentExecID: "x-1", Session: "s-1"},
		{ID: "call-late", Time: t0.Add(10 * time.Second), CallID: "c-1"},
		{ID: "call-early", Time: t0.Add(-2 * time.Second), CallID: "c-1"},
	}
	attribution.SortByLink(ev, evs)
	var got []string
	for _, e := range evs {
		got = append(got, e.ID)
	}
	if want := "call-early call-late child session near-none far-none"; strings.Join(got, " ") != want {
		t.Errorf("ranked %v, want %s", got, want)
	}
}

// relatedOfCall12 is what RelatedEvents finds for tool call c-12 of the
// console fixture, and the call.
func relatedOfCall12(t *testing.T) (evidence.Event, []attribution.Related) {
	t.Helper()
	st := attributedStore(t, consoleFixture)
	ctx := context.Background()
	hits, err := st.Search(ctx, evidence.Request{Query: evidence.MustParse(`+call_id:c\-12 +kind:tool_call`)})
	if err != nil || len(hits.Events) != 1 {
		t.Fatalf("call c-12: %v %+v", err, hits)
	}
	groups, err := attribution.RelatedEvents(ctx, st, hits.Events[0])
	if err != nil {
		t.Fatal(err)
	}
	return hits.Events[0], groups
}
