package attribution_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

func TestDescribeAttribution(t *testing.T) {
	at := func(s string) time.Time { v, _ := time.Parse(time.TimeOnly, s); return v }
	ev := evidence.Event{SrcIP: "192.0.2.1", Credential: []string{"tok-1"}}
	b := &attribution.Binding{Via: attribution.ViaIP, Value: "10.0.3.7", Agent: "agent-7", Session: "s1", Sandbox: "sb-42", Start: at("10:00:00"), End: at("10:47:20")}
	for _, c := range []struct {
		a    attribution.Attribution
		want string
	}{
		{attribution.Attribution{Agent: "agent-7", Via: attribution.ViaIP, Binding: b}, "10.0.3.7 → sandbox sb-42 (10:00:00–10:47:20) → agent-7 via src_ip"},
		{attribution.Attribution{Agent: "agent-7", Via: attribution.ViaIP, Binding: b, AfterEnd: true}, "10.0.3.7 → sandbox sb-42 (10:00:00–10:47:20) → agent-7 via src_ip, after its session ended"},
		{attribution.Attribution{Via: attribution.ViaAmbiguous, Candidates: []string{"agent-1", "agent-7"}}, "192.0.2.1, tok-1 → ambiguous: agent-1, agent-7"},
		{attribution.Attribution{}, "not attributed: no session binds 192.0.2.1, tok-1 at that time"},
	} {
		if got := attribution.Describe(ev, c.a); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

func TestAttributionPathOfProxyEvent(t *testing.T) {
	st := attributedStore(t, consoleFixture)
	ctx := context.Background()
	hits, err := st.Search(ctx, evidence.Request{Query: evidence.MustParse("+source:proxy +agent:agent-7"), Limit: 1})
	if err != nil || len(hits.Events) == 0 {
		t.Fatalf("no proxy event of agent-7: %v", err)
	}
	ev := hits.Events[0]
	got, err := attribution.Path(ctx, st, ev)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "→ agent-7 via ") {
		t.Errorf("path of %s: %q", ev.ID, got)
	}
	ev.Source = evidence.SourceLedger
	if got, _ := attribution.Path(ctx, st, ev); got != "" {
		t.Errorf("a ledger record has a path: %q", got)
	}
}

// An event a responder's exec made says so, rather than replaying the
// decision without the process tree that made it.
func TestPathOfAResponderEvent(t *testing.T) {
	ev := evidence.Event{Source: evidence.SourceSensor, Pod: "agent-evals/sandbox-sb-118", Pid: 182599, AttributedVia: attribution.ViaResponder,
		Tags: []string{"actor:oncall:pdiaz"}}
	got, err := attribution.Path(context.Background(), nil, ev)
	if err != nil || !strings.Contains(got, "a responder's exec into agent-evals/sandbox-sb-118 → oncall:pdiaz (pid 182599") {
		t.Errorf("%q %v", got, err)
	}
}
