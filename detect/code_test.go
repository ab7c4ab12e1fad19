package detect_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// session is a session_start of agent with sandbox IP ip.
func session(agent, ip string, creds ...string) evidence.Event {
	ev := mk(0, agent, evidence.KindSessionStart)
	ev.SrcIP, ev.Credential, ev.AttributedVia = ip, creds, "record"
	ev.ToolsAllowed, ev.EgressAllowlist = []string{"bash", "read_file"}, []string{"pypi.org", "*.example.net"}
	ev.Objective = "fix the tests in /work/app"
	return ev
}

// proxy is a Squid line from ip as user, to host:port (url for plain HTTP).
func proxy(sec float64, ip, user, host string, port int, decision, url string) evidence.Event {
	ev := mk(sec, "", evidence.KindNetRequest, "decision", decision, "dst_host", host)
	ev.Source, ev.SrcIP, ev.User, ev.DstPort, ev.URL = evidence.SourceProxy, ip, user, port, url
	if url == "" {
		ev.Method, ev.URL = "CONNECT", host
	}
	ev.ID += "-" + host + ev.URL + user
	return ev
}

func runBuiltin(t *testing.T, id string, evs []evidence.Event) []detect.Finding {
	t.Helper()
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.ID == id {
			attribution.AttributeAll(evs)
			fs, err := (&detect.Engine{Rules: []detect.Rule{r}}).Run(context.Background(), detect.NewMemSource(evs))
			if err != nil {
				t.Fatal(err)
			}
			return fs
		}
	}
	t.Fatalf("no rule %s", id)
	return nil
}

func TestDenialAdaptationNeedsAnotherRoute(t *testing.T) {
	base := []evidence.Event{session("a", "10.0.0.1", "px-a"),
		proxy(10, "10.0.0.1", "px-a", "x.org", 443, "deny", ""), proxy(20, "10.0.0.1", "px-a", "x.org", 443, "deny", "")}
	if fs := runBuiltin(t, "denial-adaptation", append([]evidence.Event{}, base...)); len(fs) != 0 {
		t.Errorf("a plain repeat is an adaptation: %s", fs[0].Explanation)
	}
	evs := append(append([]evidence.Event{}, base...), proxy(30, "10.0.0.1", "px-a", "x.org", 80, "deny", "http://x.org/get"))
	fs := runBuiltin(t, "denial-adaptation", evs)
	if len(fs) != 1 || fs[0].Agent != "a" || !strings.Contains(fs[0].Explanation, "over http") {
		t.Errorf("plain HTTP after a CONNECT denial: %+v", fs)
	}
}

func TestCredentialMisuse(t *testing.T) {
	call := mk(5, "c", evidence.KindToolCall, "tool", "bash", "cmdline", "HTTPS_PROXY=http://px-a:pw@proxy:3128 git fetch")
	call.CallID = "c-1"
	for _, c := range []struct {
		name  string
		evs   []evidence.Event
		agent string
	}{
		{"own credential, own sandbox", []evidence.Event{proxy(10, "10.0.0.1", "px-a", "pypi.org", 443, "allow", "")}, ""},
		{"from another agent's sandbox", []evidence.Event{proxy(10, "10.0.0.2", "px-a", "pypi.org", 443, "allow", "")}, "b"},
		{"from no sandbox, nobody named it", []evidence.Event{proxy(10, "192.0.2.9", "px-a", "pypi.org", 443, "allow", "")}, "(no agent)"},
		{"from no sandbox, after agent c named it", []evidence.Event{call, proxy(10, "192.0.2.9", "px-a", "pypi.org", 443, "allow", "")}, "c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs := append([]evidence.Event{session("a", "10.0.0.1", "px-a"), session("b", "10.0.0.2", "px-b"), session("c", "10.0.0.3", "px-c")}, c.evs...)
			fs := runBuiltin(t, "credential-misuse", evs)
			agents := map[string]bool{}
			for _, f := range fs {
				if f.Agent == "" {
					agents["(no agent)"] = true
				} else {
					agents[f.Agent] = true
				}
				if f.Agent == "a" {
					t.Errorf("the owner was charged: %s", f.Explanation)
				}
			}
			if c.agent == "" && len(fs) > 0 || c.agent != "" && !agents[c.agent] {
				t.Errorf("findings for %v, want %q", agents, c.agent)
			}
		})
	}
}

func TestToolOutsideTheGrant(t *testing.T) {
	call := mk(5, "a", evidence.KindToolCall, "tool", "ci_submit")
	call.CallID = "c-9"
	fs := runBuiltin(t, "tool-escalation", []evidence.Event{session("a", "10.0.0.1"), call})
	if len(fs) != 1 || !strings.Contains(fs[0].Explanation, "ci_submit (c-9) is not in tools_allowed [bash, read_file]") {
		t.Errorf("%+v", fs)
	}
}

// Shared infrastructure (reached by several agents, named by no
// allowlist) is not a new destination; a host admitted only by a wildcard
// is.
func TestDestinationExpansion(t *testing.T) {
	conn := func(sec float64, ip, dst string) evidence.Event {
		ev := mk(sec, "", evidence.KindNetConnect)
		ev.Source, ev.SrcIP, ev.DstIP, ev.ID = evidence.SourceSensor, ip, dst, ev.ID+ip+dst
		return ev
	}
	evs := []evidence.Event{session("a", "10.0.0.1"), session("b", "10.0.0.2"),
		conn(1, "10.0.0.1", "10.96.40.12"), conn(2, "10.0.0.2", "10.96.40.12"),
		proxy(3, "10.0.0.1", "", "pypi.org", 443, "allow", ""), proxy(4, "10.0.0.1", "", "bucket.example.net", 443, "allow", ""),
		conn(5, "10.0.0.1", "203.0.113.5")}
	fs := runBuiltin(t, "destination-expansion", evs)
	if len(fs) != 1 || fs[0].Agent != "a" || !strings.Contains(fs[0].Explanation, "2 destinations") ||
		!strings.Contains(fs[0].Explanation, "bucket.example.net (wildcard only), 203.0.113.5") {
		t.Errorf("%+v", fs)
	}
}

// TestActionRateBaselineIgnoresAFarRecord: an agent's steady pace is its
// baseline; one record of it dated 9999-12-31 spread that baseline over
// ten thousand years and made every busy window a burst.
func TestActionRateBaselineIgnoresAFarRecord(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	var evs []evidence.Event
	for w := 0; w < 30; w++ {
		for i := 0; i < 40; i++ {
			evs = append(evs, evidence.Event{ID: fmt.Sprintf("c%02d-%02d", w, i), Time: t0.Add(time.Duration(w)*10*time.Second + time.Duration(i)*200*time.Millisecond),
				Source: evidence.SourceLedger, Kind: evidence.KindToolCall, Agent: "a", AttributedVia: "record", Tool: "bash"})
		}
	}
	if fs := runBuiltin(t, "action-rate", append([]evidence.Event{}, evs...)); len(fs) != 0 {
		t.Fatalf("a steady pace is a burst: %s", fs[0].Explanation)
	}
	far := evidence.Event{ID: "far", Time: time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		Source: evidence.SourceLedger, Kind: evidence.KindToolCall, Agent: "a", AttributedVia: "record", Tool: "bash"}
	if fs := runBuiltin(t, "action-rate", append(evs, far)); len(fs) != 0 {
		t.Errorf("with one record dated 9999-12-31 a steady pace is a burst: %s", fs[0].Explanation)
	}
}

// A denial-adaptation finding describes the first adaptations of its
// episode and counts the rest, whether the pass is asked once at the end
// or after every event (the episode then grows in place): the episode
// after a gap longer than the window describes its own first ones.
func TestDenialAdaptationDescribesTheFirstOfEachEpisode(t *testing.T) {
	evs := []evidence.Event{session("a", "10.0.0.1", "px-a"), proxy(1, "10.0.0.1", "px-a", "x.org", 443, "deny", "")}
	for i, port := range []int{81, 82, 83, 84, 85} {
		evs = append(evs, proxy(float64(10+10*i), "10.0.0.1", "px-a", "x.org", port, "allow", ""))
	}
	evs = append(evs, proxy(3000, "10.0.0.1", "px-a", "x.org", 443, "deny", ""))
	for i, port := range []int{91, 92, 93, 94} {
		evs = append(evs, proxy(float64(3010+10*i), "10.0.0.1", "px-a", "x.org", port, "allow", ""))
	}
	attribution.AttributeAll(evs)
	rules := builtinRules(t, "denial-adaptation")
	for _, every := range []int64{0, 1} {
		_, fs := passOver(t, rules, nil, evs, every)
		if len(fs) != 2 {
			t.Fatalf("asked every %d: %d findings, want one per episode: %+v", every, len(fs), fs)
		}
		for i, c := range []struct {
			said, unsaid []string
			more         string
		}{
			{[]string{"port 81", "port 82", "port 83"}, []string{"port 84", "port 85"}, "and 2 more"},
			{[]string{"port 91", "port 92", "port 93"}, []string{"port 94", "port 8"}, "and 1 more"},
		} {
			ex := fs[i].Explanation
			for _, s := range c.said {
				if !strings.Contains(ex, s) {
					t.Errorf("asked every %d, episode %d: %q does not describe %s", every, i+1, ex, s)
				}
			}
			for _, s := range c.unsaid {
				if strings.Contains(ex, s) {
					t.Errorf("asked every %d, episode %d: %q describes %s", every, i+1, ex, s)
				}
			}
			if !strings.HasSuffix(ex, c.more) {
				t.Errorf("asked every %d, episode %d: %q does not end %q", every, i+1, ex, c.more)
			}
		}
	}
}
