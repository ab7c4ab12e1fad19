package attribution_test

import (
	"context"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

func TestRelatedEvents(t *testing.T) {
	st := attributedStore(t, consoleFixture)
	ctx := context.Background()
	hits, err := st.Search(ctx, evidence.Request{Query: evidence.MustParse(`+call_id:c\-12 +kind:tool_call`)})
	if err != nil || len(hits.Events) != 1 {
		t.Fatalf("call c-12: %v %+v", err, hits)
	}
	ev := hits.Events[0]
	groups, err := attribution.RelatedEvents(ctx, st, ev)
	if err != nil {
		t.Fatal(err)
	}
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
