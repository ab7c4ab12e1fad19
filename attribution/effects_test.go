package attribution_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// TestToolEffects follows agent-7's probing loop (tool call c-182 in the
// egress-probe-exfil sample: curl to 13 hosts) into Tetragon and Squid, and
// back from one of its proxy denials to the call.
func TestToolEffects(t *testing.T) {
	st := attributedStore(t, filepath.Join("..", "sample-incidents", "egress-probe-exfil"))
	ctx := context.Background()
	hits, err := st.Search(ctx, evidence.Request{Query: evidence.MustParse("+call_id:c-182 +kind:tool_call")})
	if err != nil || len(hits.Events) != 1 {
		t.Fatalf("the call: %v %d", err, len(hits.Events))
	}
	call := hits.Events[0]
	effects, err := attribution.ToolEffects(ctx, st, call)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	hosts := map[string]bool{}
	for _, e := range effects {
		if e.Agent != "agent-7" || e.Time.Before(call.Time) || e.Source == evidence.SourceLedger {
			t.Errorf("not an effect of the call: %s %s %s", e.Time, e.Source, e.Kind)
		}
		kinds[e.Source+" "+e.Kind]++
		if e.Source == evidence.SourceProxy {
			hosts[e.DstHost] = true
		}
	}
	// bash -lc plus one curl per host; one proxy request per host
	if kinds["sensor proc_exec"] != 14 || kinds["proxy net_request"] != 13 || !hosts["ngrok.com"] {
		t.Errorf("effects by kind %v, proxy hosts %v", kinds, hosts)
	}
	if !strings.Contains(effects[0].Cmdline, "/bin/bash -lc") {
		t.Errorf("first effect %q, want the shell the harness ran the command in", effects[0].Cmdline)
	}

	var denial evidence.Event
	for _, e := range effects {
		if e.Source == evidence.SourceProxy && e.DstHost == "pastebin.com" {
			denial = e
		}
	}
	cause, ok, err := attribution.ToolCause(ctx, st, denial)
	if err != nil || !ok || cause.ID != call.ID {
		t.Errorf("cause of the pastebin denial: %s %v %v", cause.CallID, ok, err)
	}
	groups, err := attribution.RelatedEvents(ctx, st, denial)
	if err != nil || len(groups) == 0 || groups[0].Why != "the tool call it came from (c-182)" {
		t.Errorf("related groups of the denial: %+v %v", groups, err)
	}
}
