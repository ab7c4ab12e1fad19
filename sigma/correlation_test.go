package sigma

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// members are two proxy rules the correlations below name.
const members = `
---
title: Denied request
id: 31111111-2222-4333-8444-555555555555
name: denied_request
logsource:
    category: proxy
detection:
    sel:
        sc-status: 403
    condition: sel
---
title: Paste site
id: 41111111-2222-4333-8444-555555555555
name: paste_site
logsource:
    category: proxy
detection:
    sel:
        cs-host|endswith: pastebin.com
    condition: sel
`

func denied(id, agent string, sec int, host string) evidence.Event {
	ev := request(id, agent, sec, "CONNECT", host+":443", host)
	ev.Status = "403"
	return ev
}

func findingsOf(fs []detect.Finding, id string) []detect.Finding {
	var out []detect.Finding
	for _, f := range fs {
		if f.Detector == id {
			out = append(out, f)
		}
	}
	return out
}

func TestCorrelations(t *testing.T) {
	evs := []evidence.Event{
		// agent-1: four denials to three hosts within a minute, then a
		// paste site
		denied("a1", "agent-1", 0, "a.example"),
		denied("a2", "agent-1", 10, "b.example"),
		denied("a3", "agent-1", 20, "c.example"),
		denied("a4", "agent-1", 30, "a.example"),
		request("a5", "agent-1", 40, "CONNECT", "pastebin.com:443", "pastebin.com"),
		// agent-2: the paste site first, one denial after
		request("b1", "agent-2", 0, "CONNECT", "pastebin.com:443", "pastebin.com"),
		denied("b2", "agent-2", 5, "a.example"),
		// agent-3: two denials an hour apart
		denied("c1", "agent-3", 0, "a.example"),
		denied("c2", "agent-3", 3600, "a.example"),
	}
	cases := []struct {
		name, corr string
		want       string // agent:events of each finding
	}{
		{"event_count", `type: event_count
    rules: [denied_request]
    group-by: [agent]
    timespan: 1m
    condition:
        gte: 3`, "agent-1:4"},
		{"value_count", `type: value_count
    rules: [denied_request]
    group-by: [agent]
    timespan: 1m
    condition:
        field: cs-host
        gte: 3`, "agent-1:4"},
		{"value_count below bound", `type: value_count
    rules: [denied_request]
    group-by: [agent]
    timespan: 1m
    condition:
        field: cs-host
        gte: 4`, ""},
		{"event_count of two rules by id", `type: event_count
    rules:
        - 31111111-2222-4333-8444-555555555555
        - 41111111-2222-4333-8444-555555555555
    group-by: [agent]
    timespan: 1m
    condition:
        gte: 2`, "agent-1:5 agent-2:2"},
		{"temporal", `type: temporal
    rules: [denied_request, paste_site]
    group-by: [agent]
    timespan: 1m`, "agent-1:5 agent-2:2"},
		{"temporal_ordered", `type: temporal_ordered
    rules: [denied_request, paste_site]
    group-by: [agent]
    timespan: 1m`, "agent-1:2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := loadText(t, `title: Correlated
id: 51111111-2222-4333-8444-555555555555
level: critical
correlation:
    `+c.corr+members)
			for _, r := range set.Refused {
				t.Fatalf("refused: %v", r)
			}
			// generate is false: a rule the correlation names gives no
			// findings of its own
			names := map[string]string{"31111111-2222-4333-8444-555555555555": "denied_request",
				"41111111-2222-4333-8444-555555555555": "paste_site"}
			for _, r := range set.Rules {
				if strings.Contains(c.corr, r.ID) || names[r.ID] != "" && strings.Contains(c.corr, names[r.ID]) {
					t.Errorf("rule %s is named by the correlation and loaded on its own too", r.ID)
				}
			}
			if set.Members == 0 {
				t.Error("no rule counted as a member")
			}
			fs := findingsOf(scan(t, set.Rules, evs), "51111111-2222-4333-8444-555555555555")
			var got []string
			for _, f := range fs {
				got = append(got, f.Agent+":"+strconv.Itoa(len(f.Events)))
				if f.Severity != "critical" || !strings.Contains(f.Explanation, "Sigma correlation Correlated") {
					t.Errorf("finding %+v: want severity critical and the rule's title", f)
				}
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("findings %q, want %q", strings.Join(got, " "), c.want)
			}
		})
	}
}

func TestCorrelationGenerate(t *testing.T) {
	set := loadText(t, `title: Correlated
id: 51111111-2222-4333-8444-555555555555
generate: true
correlation:
    type: event_count
    rules: [paste_site]
    group-by: [agent]
    timespan: 1m
    condition:
        gte: 1`+members)
	// generate keeps the named rule's own findings; the other rule is
	// named by nothing and is a rule of its own
	if len(set.Refused) != 0 || len(set.Rules) != 3 || set.Members != 0 {
		t.Fatalf("rules %d members %d refused %v, want 3 rules", len(set.Rules), set.Members, set.Refused)
	}
}

func TestCorrelationNamesUnknownRule(t *testing.T) {
	set := loadText(t, `title: Correlated
correlation:
    type: temporal
    rules:
        - paste_site
        - no_such_rule
    group-by: [agent]
    timespan: 1m`+members)
	if len(set.Refused) != 1 || !strings.Contains(set.Refused[0].Reason, `"no_such_rule"`) || set.Refused[0].Line != 6 {
		t.Fatalf("refused %v, want no_such_rule at line 6", set.Refused)
	}
}
