package detect_test

import (
	"context"
	"github.com/cordon-ir/cordon/capability"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/ledger"
)

// ledgerEvents parses ledger lines as ingest does (normalization included).
func ledgerEvents(t *testing.T, lines ...string) []evidence.Event {
	t.Helper()
	s := &sink{}
	if _, err := ingest.Stream(strings.NewReader(strings.Join(lines, "\n")+"\n"), "l.jsonl", ledger.New(), ingest.Position{}, s, nil); err != nil {
		t.Fatal(err)
	}
	return s.evs
}

// Two sessions share a volume; agent-41 reads agent-40's proxy credential
// from it with read_file, through the tool gateway. The read is a
// credential access and the credential is agent-41's, acquired from
// agent-40; a read_file the gateway refused acquires nothing.
func TestReadFileOfAnotherSessionsSecret(t *testing.T) {
	const (
		v   = `{"v":1,"run":"r-9",`
		s40 = v + `"ts":"2026-08-11T09:00:00Z","type":"session_start","agent":"agent-40","session":"s-300","sandbox":{"id":"sb-1","ip":"10.0.9.1"},"credentials":[{"id":"px-s300","kind":"proxy-auth"}]}`
		s41 = v + `"ts":"2026-08-11T09:00:01Z","type":"session_start","agent":"agent-41","session":"s-301","sandbox":{"id":"sb-2","ip":"10.0.9.2"},"credentials":[{"id":"px-s301","kind":"proxy-auth"}]}`
	)
	read := func(call, path, status string) []string {
		return []string{
			v + `"ts":"2026-08-11T09:10:00Z","type":"tool_call","agent":"agent-41","session":"s-301","call_id":"` + call + `","tool":"read_file","args":{"path":"` + path + `"}}`,
			v + `"ts":"2026-08-11T09:10:01Z","type":"tool_result","agent":"agent-41","session":"s-301","call_id":"` + call + `","status":"` + status + `"}`,
		}
	}
	scan := func(evs []evidence.Event) detect.Result {
		t.Helper()
		rules, err := detect.Builtin()
		if err != nil {
			t.Fatal(err)
		}
		attribution.AttributeAll(evs)
		r, err := (&detect.Engine{Rules: rules}).Scan(context.Background(), detect.NewMemSource(evs))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	r := scan(ledgerEvents(t, append([]string{s40, s41}, read("c-1", "/mnt/shared/eval/s-300/proxy.env", "ok")...)...))
	found := false
	for _, f := range r.Findings {
		found = found || f.Detector == "credential-access" && f.Agent == "agent-41"
	}
	if !found {
		t.Errorf("no credential-access finding for agent-41: %+v", r.Findings)
	}
	c, ok := findCap(r.Capabilities.For("agent-41"), capability.Credential, "px-s300")
	if !ok || c.Origin != capability.Acquired || c.Owner != "agent-40" || !strings.Contains(c.How, "/mnt/shared/eval/s-300/proxy.env") {
		t.Errorf("px-s300 of agent-41: %+v (found %v)", c, ok)
	}

	r = scan(ledgerEvents(t, append([]string{s40, s41}, read("c-2", "/mnt/shared/eval/s-300/proxy.env", "denied")...)...))
	if c, ok := findCap(r.Capabilities.For("agent-41"), capability.Credential, "px-s300"); ok {
		t.Errorf("a refused read_file acquired px-s300: %+v", c)
	}
}
