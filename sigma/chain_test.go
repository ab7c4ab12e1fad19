package sigma

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Chains into event_count, value_count and the metric correlations: each
// match of the correlation named is one event at its end, holding the
// values of its group-by. The specification gives no example of such a
// chain (its one chain is TestSpecChainedTemporalOrdered's).

// burstsOf is an event_count of three failed logins within five minutes,
// grouped by groupBy, named failed_bursts.
func burstsOf(groupBy string) string {
	return `
---
title: Failed login burst
id: a8418a5a-5fc4-46b5-b23b-6c73beb19d41
name: failed_bursts
correlation:
    type: event_count
    rules:
        - failed_login
    group-by: ` + groupBy + `
    timespan: 5m
    condition:
        gte: 3
` + failedLogin
}

// failures are n failed logins of user on host, 20 seconds apart from
// sec on.
func failures(user, host string, sec, n int) []evidence.Event {
	var out []evidence.Event
	for i := 0; i < n; i++ {
		out = append(out, winEvent(fmt.Sprintf("%s-%s-%d-%d", user, host, sec, i), sec+20*i, "4625", user, host, "10.0.0.1"))
	}
	return out
}

func joined(lists ...[]evidence.Event) []evidence.Event {
	var out []evidence.Event
	for _, l := range lists {
		out = append(out, l...)
	}
	sortEvents(out)
	return out
}

func TestChainEventCount(t *testing.T) {
	chain := `title: Repeated failed login bursts
id: c1111111-2222-4333-8444-555555555555
level: high
correlation:
    type: event_count
    rules:
        - failed_bursts
    group-by:
        - User
    timespan: 1h
    condition:
        gte: 2
` + burstsOf("[User]")
	evs := joined(
		// alice: two bursts twenty minutes apart: a hit
		failures("alice", "host-a", 0, 3), failures("alice", "host-a", 1200, 3),
		// bob: one burst, then two failures that are not one
		failures("bob", "host-a", 0, 3), failures("bob", "host-a", 1200, 2),
		// carol: two bursts two hours apart
		failures("carol", "host-a", 0, 3), failures("carol", "host-a", 7200, 3),
		// dave and erin: a burst each, on one host
		failures("dave", "host-a", 0, 3), failures("erin", "host-a", 600, 3),
	)
	set := loadSpec(t, chain)
	// the chain alone gives findings: the burst and the failed login are
	// its members
	if len(set.Rules) != 1 || set.Members != 2 {
		t.Fatalf("%d rules, %d members; want the chain alone", len(set.Rules), set.Members)
	}
	fs := findingsOf(scan(t, set.Rules, evs), "c1111111-2222-4333-8444-555555555555")
	if len(fs) != 1 || fs[0].Agent != "agent-alice" || len(fs[0].Events) != 6 || fs[0].Severity != "high" {
		t.Fatalf("findings %+v, want one of alice's six failures", fs)
	}
	if f := fs[0]; f.Events[0] != "alice-host-a-0-0" || !f.Start.Equal(t0) ||
		!strings.Contains(f.Explanation, "2 matches of failed_bursts by User User=alice within 1h") {
		t.Errorf("finding %q from %s with %v", f.Explanation, f.Start, f.Events)
	}

	// generate: true keeps the bursts' own findings too
	set = loadSpec(t, strings.Replace(chain, "level: high", "level: high\ngenerate: true", 1))
	if len(set.Rules) != 2 {
		t.Fatalf("%d rules with generate, want the chain and the bursts", len(set.Rules))
	}
	if got := summary(scan(t, set.Rules, evs), "a8418a5a-5fc4-46b5-b23b-6c73beb19d41"); got != "agent-alice:3 agent-alice:3 agent-bob:3 agent-carol:3 agent-carol:3 agent-dave:3 agent-erin:3" {
		t.Errorf("bursts' own findings %q", got)
	}
}

func TestChainValueCount(t *testing.T) {
	set := loadSpec(t, `title: Failed login bursts on several hosts
id: c2111111-2222-4333-8444-555555555555
correlation:
    type: value_count
    rules:
        - failed_bursts
    group-by:
        - User
    timespan: 1h
    condition:
        field: ComputerName
        gte: 2
`+burstsOf("[User, ComputerName]"))
	evs := joined(
		// alice: a burst on host-a, then one on host-b: a hit
		failures("alice", "host-a", 0, 3), failures("alice", "host-b", 600, 3),
		// a user whose name needs quoting in the group: a hit
		failures("svc, backup", "host-a", 0, 3), failures("svc, backup", "host-b", 600, 3),
		// bob: two bursts, both on host-a
		failures("bob", "host-a", 0, 3), failures("bob", "host-a", 1200, 3),
		// carol: host-a, and host-b two hours later
		failures("carol", "host-a", 0, 3), failures("carol", "host-b", 7200, 3),
		// dave on host-a, erin on host-b
		failures("dave", "host-a", 0, 3), failures("erin", "host-b", 0, 3),
		// frank: a burst on host-a, two failures on host-b
		failures("frank", "host-a", 0, 3), failures("frank", "host-b", 600, 2),
	)
	fs := findingsOf(scan(t, set.Rules, evs), "c2111111-2222-4333-8444-555555555555")
	if got := summary(fs, "c2111111-2222-4333-8444-555555555555"); got != "agent-alice:6 agent-svc, backup:6" {
		t.Fatalf("findings %q, want alice's and svc's six failures", got)
	}
	for _, f := range fs {
		if !strings.Contains(f.Explanation, "2 distinct ComputerName (host-a, host-b) by User") ||
			strings.Join(f.Values, " ") != "host-a host-b" {
			t.Errorf("finding %q values %v", f.Explanation, f.Values)
		}
	}
}

// connects are three connections of agent to port, ten seconds apart
// from sec on (n of them).
func connects(agent string, port, sec, n int) []evidence.Event {
	var out []evidence.Event
	for i := 0; i < n; i++ {
		out = append(out, evidence.Event{ID: fmt.Sprintf("%s-%d-%d-%d", agent, port, sec, i), Time: t0.Add(time.Duration(sec+10*i) * time.Second),
			Source: evidence.SourceSensor, Format: "tetragon", Kind: evidence.KindNetConnect, Agent: agent,
			DstIP: "10.0.9.9", DstPort: port, Message: "connect"})
	}
	return out
}

const retried = `
---
title: Retried port
name: retried_port
correlation:
    type: event_count
    rules: [connection]
    group-by: [agent, DestinationPort]
    timespan: 1m
    condition:
        gte: 3
---
title: Connection
name: connection
logsource:
    product: linux
    category: network_connection
detection:
    sel:
        DestinationIp|cidr: 10.0.0.0/8
    condition: sel
`

// The metric correlations over a correlation read a number its matches
// hold: a group-by field of it that is numeric (a port here).
func TestChainMetrics(t *testing.T) {
	evs := joined(
		// a: retries port 22, then 3389, within ten minutes
		connects("a", 22, 0, 3), connects("a", 3389, 60, 3),
		// b: 8080, then 8443
		connects("b", 8080, 0, 3), connects("b", 8443, 60, 3),
		// c: retries 3389; two connections to 22 are no retry
		connects("c", 3389, 0, 3), connects("c", 22, 60, 2),
		// d: 22, and 3389 half an hour later
		connects("d", 22, 0, 3), connects("d", 3389, 1800, 3),
		// e retries 22, f 3389
		connects("e", 22, 0, 3), connects("f", 3389, 0, 3),
	)
	for _, c := range []struct {
		typ, cond, want string
	}{
		{"value_sum", "gt: 3400", "a:6 b:6"},
		{"value_avg", "gt: 1000\n        lt: 2000", "a:6"},
		{"value_median", "gt: 1000\n        lt: 2000", "a:6"},
		// the median by nearest rank of 22 and 3389 is 22: any retry of
		// a low port alone is enough
		{"value_percentile", "percentile: 50\n        lte: 1024", "a:6 d:3 e:3"},
	} {
		t.Run(c.typ, func(t *testing.T) {
			set := loadText(t, `title: Retried ports
id: c3111111-2222-4333-8444-555555555555
correlation:
    type: `+c.typ+`
    rules: [retried_port]
    group-by: [agent]
    timespan: 10m
    condition:
        field: DestinationPort
        `+c.cond+`
`+retried)
			for _, r := range set.Refused {
				t.Fatalf("refused: %v", r)
			}
			var got []string
			for _, f := range findingsOf(scan(t, set.Rules, evs), "c3111111-2222-4333-8444-555555555555") {
				got = append(got, fmt.Sprintf("%s:%d", f.Agent, len(f.Events)))
				if !strings.Contains(f.Explanation, " of DestinationPort ") {
					t.Errorf("explanation %q does not name the field", f.Explanation)
				}
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("findings %q, want %q", strings.Join(got, " "), c.want)
			}
		})
	}
}

// A chain loaded from Sigma is not exported (it is a Sigma file
// already), whichever correlation it is, with the reason.
func TestChainNotExported(t *testing.T) {
	for _, typ := range []string{"event_count", "temporal"} {
		set := loadText(t, `title: Chain
correlation:
    type: `+typ+`
    rules: [retried_port, retried_twice]
    group-by: [agent, DestinationPort]
    timespan: 10m
    condition:
        gte: 2
`+retried+`---
title: Retried twice
name: retried_twice
correlation:
    type: event_count
    rules: [connection]
    group-by: [agent, DestinationPort]
    timespan: 1m
    condition:
        gte: 2
`)
		ex, not, err := Export(set.Rules, nil)
		if err != nil || len(ex) != 0 || len(not) != 1 || !strings.Contains(not[0].Reason, "a Sigma chain") {
			t.Errorf("%s: exported %d, not %+v, %v; want it not exported as a chain", typ, len(ex), not, err)
		}
	}
}

// The field a value_count chain counts may be an alias the named
// correlation groups by.
func TestChainValueCountOfAlias(t *testing.T) {
	set := loadText(t, `title: Retried ports
id: c4111111-2222-4333-8444-555555555555
correlation:
    type: value_count
    rules: [retried_port]
    group-by: [agent]
    timespan: 10m
    condition:
        field: port
        gte: 2
`+strings.Replace(retried, "[agent, DestinationPort]", "[agent, port]\n    aliases:\n        port:\n            connection: DestinationPort", 1))
	for _, r := range set.Refused {
		t.Fatalf("refused: %v", r)
	}
	evs := joined(connects("a", 22, 0, 3), connects("a", 3389, 60, 3), connects("e", 22, 0, 3), connects("e", 22, 120, 3))
	fs := findingsOf(scan(t, set.Rules, evs), "c4111111-2222-4333-8444-555555555555")
	if len(fs) != 1 || fs[0].Agent != "a" || strings.Join(fs[0].Values, " ") != "22 3389" {
		t.Errorf("findings %+v, want a's ports 22 and 3389", fs)
	}
}

// A chain may name a chain: the hosts count's matches are counted again.
func TestChainOfChains(t *testing.T) {
	set := loadSpec(t, `title: Users with bursts on several hosts, twice
id: c5111111-2222-4333-8444-555555555555
correlation:
    type: event_count
    rules: [burst_hosts]
    group-by: [User]
    timespan: 1d
    condition:
        gte: 2
---
title: Bursts on several hosts
name: burst_hosts
correlation:
    type: value_count
    rules: [failed_bursts]
    group-by: [User]
    timespan: 1h
    condition:
        field: ComputerName
        gte: 2
`+burstsOf("[User, ComputerName]"))
	evs := joined(
		// alice: bursts on two hosts, and again three hours later
		failures("alice", "host-a", 0, 3), failures("alice", "host-b", 600, 3),
		failures("alice", "host-a", 10800, 3), failures("alice", "host-b", 11400, 3),
		// bob: bursts on two hosts once, then on one host
		failures("bob", "host-a", 0, 3), failures("bob", "host-b", 600, 3), failures("bob", "host-a", 10800, 3),
	)
	if got := summary(scan(t, set.Rules, evs), "c5111111-2222-4333-8444-555555555555"); got != "agent-alice:12" {
		t.Errorf("findings %q, want alice's twelve failures", got)
	}
}
