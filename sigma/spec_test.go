package sigma

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// The correlation examples of the Sigma specification (v2), each run as
// written but for the log source's events: a test pipeline maps Windows
// security and ECS field names onto cordon's fields (ComputerName is the
// sandbox, WorkstationName the source address).
const specPipeline = `name: spec-examples
transformations:
  - type: add_condition
    conditions:
      source: sensor
      kind: auth
    rule_conditions:
      - type: logsource
        product: windows
  - type: field_name_mapping
    mapping:
      EventID: status
      User: user
      ComputerName: sandbox
      WorkstationName: src_ip
      CommandLine: cmdline
      http.response.status_code: status
      source.ip: src_ip
      destination.ip: dst_ip
      event.outcome: decision
    rule_conditions:
      - type: logsource
        product: windows
`

// loadSpec loads one file with the spec examples' pipeline.
func loadSpec(t *testing.T, text string) *Set {
	t.Helper()
	dir := t.TempDir()
	p, err := ParsePipeline("spec.yml", []byte(specPipeline))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "rules.yml")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := Load(p, file)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range set.Refused {
		t.Fatalf("refused: %v", r)
	}
	return set
}

// winEvent is a Windows security event at t0+sec.
func winEvent(id string, sec int, eventID, user, computer, workstation string) evidence.Event {
	return evidence.Event{ID: id, Time: t0.Add(time.Duration(sec) * time.Second), Source: evidence.SourceSensor,
		Format: "test", Kind: "auth", Agent: "agent-" + user, Status: eventID, User: user, Sandbox: computer,
		SrcIP: workstation, Message: "event " + eventID}
}

// summary is "group-agent:events" of each finding of detector, sorted.
func summary(fs []detect.Finding, detector string) string {
	var out []string
	for _, f := range fs {
		if f.Detector == detector {
			out = append(out, fmt.Sprintf("%s:%d", f.Agent, len(f.Events)))
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

const failedLogin = `
---
title: Single failed login
id: 53ba33fd-3a50-4468-a5ef-c583635cfa92
name: failed_login
logsource:
    product: windows
    service: security
detection:
    selection:
        EventID:
            - 529
            - 4625
    condition: selection
`

func TestSpecEventCount(t *testing.T) {
	set := loadSpec(t, `title: Many failed logins
id: 0e95725d-7320-415d-80f7-004da920fc11
correlation:
    type: event_count
    rules:
        - 5638f7c0-ac70-491d-8465-2a65075e0d86
    group-by:
        - ComputerName
    timespan: 1h
    condition:
        gte: 100
`+strings.Replace(failedLogin, "53ba33fd-3a50-4468-a5ef-c583635cfa92", "5638f7c0-ac70-491d-8465-2a65075e0d86", 1))
	var evs []evidence.Event
	for i := 0; i < 100; i++ { // 100 on host-a within the hour: a hit
		evs = append(evs, winEvent(fmt.Sprintf("a%03d", i), i*30, "4625", "alice", "host-a", "10.0.0.1"))
	}
	for i := 0; i < 99; i++ { // 99 on host-b: none
		evs = append(evs, winEvent(fmt.Sprintf("b%03d", i), i*30, "4625", "bob", "host-b", "10.0.0.2"))
	}
	evs = append(evs, winEvent("c", 10, "4624", "bob", "host-b", "10.0.0.2")) // a success is not counted
	sortEvents(evs)
	if got := summary(scan(t, set.Rules, evs), "0e95725d-7320-415d-80f7-004da920fc11"); got != "agent-alice:100" {
		t.Errorf("findings %q, want the 100 failures on host-a", got)
	}
}

func TestSpecValueCountSeveralGroupBy(t *testing.T) {
	set := loadSpec(t, `title: Failed login
id: 0e95725d-7320-415d-80f7-004da920fc12
correlation:
    type: value_count
    rules:
        - 53ba33fd-3a50-4468-a5ef-c583635cfa92
    group-by:
        - ComputerName
        - WorkstationName
    timespan: 1d
    condition:
        field: User
        gte: 100
`+failedLogin)
	var evs []evidence.Event
	for i := 0; i < 100; i++ {
		// 100 users from one workstation against host-a: a hit
		evs = append(evs, winEvent(fmt.Sprintf("a%03d", i), i, "4625", fmt.Sprintf("u%03d", i), "host-a", "10.0.0.1"))
		// 100 users against host-b, but from two workstations: none
		evs = append(evs, winEvent(fmt.Sprintf("b%03d", i), i, "4625", fmt.Sprintf("u%03d", i), "host-b", fmt.Sprintf("10.0.0.%d", 2+i%2)))
	}
	sortEvents(evs)
	fs := findingsOf(scan(t, set.Rules, evs), "0e95725d-7320-415d-80f7-004da920fc12")
	if len(fs) != 1 || len(fs[0].Events) != 100 || fs[0].Events[0] != "a000" {
		t.Fatalf("findings %+v, want one of host-a's 100 failures", fs)
	}
	if !strings.Contains(fs[0].Explanation, "ComputerName=host-a, WorkstationName=10.0.0.1") {
		t.Errorf("explanation %q does not name the group", fs[0].Explanation)
	}
}

func TestSpecTemporalSeveralGroupBy(t *testing.T) {
	recon := ""
	for _, c := range []string{"a", "b", "c"} {
		recon += fmt.Sprintf(`
---
title: Recon %[1]s
name: recon_cmd_%[1]s
logsource:
    product: windows
    category: process_creation
detection:
    selection:
        CommandLine|contains: recon-%[1]s
    condition: selection
`, c)
	}
	set := loadSpec(t, `title: Recon
id: 61111111-2222-4333-8444-555555555555
correlation:
    type: temporal
    rules:
        - recon_cmd_a
        - recon_cmd_b
        - recon_cmd_c
    group-by:
        - ComputerName
        - User
    timespan: 5m
`+recon)
	cmd := func(id string, sec int, c, user, host string) evidence.Event {
		ev := winEvent(id, sec, "4688", user, host, "10.0.0.1")
		ev.Cmdline = "recon-" + c
		return ev
	}
	evs := []evidence.Event{
		// alice runs all three on host-a, in any order, within 5m: a hit
		cmd("a1", 0, "c", "alice", "host-a"), cmd("a2", 60, "a", "alice", "host-a"), cmd("a3", 120, "b", "alice", "host-a"),
		// bob runs a and b on host-a and c on host-b: none
		cmd("b1", 0, "a", "bob", "host-a"), cmd("b2", 10, "b", "bob", "host-a"), cmd("b3", 20, "c", "bob", "host-b"),
		// carol runs all three on host-a over ten minutes: none
		cmd("c1", 0, "a", "carol", "host-a"), cmd("c2", 300, "b", "carol", "host-a"), cmd("c3", 600, "c", "carol", "host-a"),
	}
	sortEvents(evs)
	if got := summary(scan(t, set.Rules, evs), "61111111-2222-4333-8444-555555555555"); got != "agent-alice:3" {
		t.Errorf("findings %q, want alice's three commands", got)
	}
}

// TestSpecChainedTemporalOrdered is the specification's complete example:
// ten failed logins (an event_count correlation) followed by a successful
// login of the same user within ten minutes.
func TestSpecChainedTemporalOrdered(t *testing.T) {
	set := loadSpec(t, `title: Correlation - Multiple Failed Logins Followed by Successful Login
id: b180ead8-d58f-40b2-ae54-c8940995b9b6
status: experimental
correlation:
    type: temporal_ordered
    rules:
        - multiple_failed_login
        - successful_login
    group-by:
        - User
    timespan: 10m
level: high
---
title: Multiple failed logons
id: a8418a5a-5fc4-46b5-b23b-6c73beb19d41
name: multiple_failed_login
correlation:
    type: event_count
    rules:
        - failed_login
    group-by:
        - User
    timespan: 10m
    condition:
        gte: 10
---
title: Successful login
id: 4d0a2c83-c62c-4ed4-b475-c7e23a9269b8
name: successful_login
logsource:
    product: windows
    service: security
detection:
    selection:
        EventID:
            - 528
            - 4624
    condition: selection
`+failedLogin)
	// only the chain gives findings: the rules it names, the inner
	// correlation too, generate none of their own
	if len(set.Rules) != 1 || set.Members != 3 {
		t.Fatalf("%d rules, %d members; want the chain alone over 3 members", len(set.Rules), set.Members)
	}
	var evs []evidence.Event
	add := func(user string, from, n int, id string) {
		for i := 0; i < n; i++ {
			evs = append(evs, winEvent(fmt.Sprintf("%s-f%02d", user, i), from+i*20, id, user, "host-a", "10.0.0.1"))
		}
	}
	add("alice", 0, 10, "4625") // ten failures, then a success: a hit
	evs = append(evs, winEvent("alice-ok", 300, "4624", "alice", "host-a", "10.0.0.1"))
	evs = append(evs, winEvent("bob-ok", 0, "4624", "bob", "host-a", "10.0.0.1")) // a success first: none
	add("bob", 30, 10, "4625")
	add("carol", 0, 9, "4625") // nine failures are not many: none
	evs = append(evs, winEvent("carol-ok", 300, "4624", "carol", "host-a", "10.0.0.1"))
	add("dave", 0, 10, "4625") // a success an hour later: none
	evs = append(evs, winEvent("dave-ok", 3600, "4624", "dave", "host-a", "10.0.0.1"))
	sortEvents(evs)
	fs := findingsOf(scan(t, set.Rules, evs), "b180ead8-d58f-40b2-ae54-c8940995b9b6")
	if len(fs) != 1 || fs[0].Agent != "agent-alice" || fs[0].Severity != "high" {
		t.Fatalf("findings %+v, want one high finding about alice", fs)
	}
	if f := fs[0]; len(f.Events) != 11 || f.Events[0] != "alice-f00" || f.Events[10] != "alice-ok" || !f.Start.Equal(t0) {
		t.Errorf("events %v from %s, want the ten failures and the success from t0", f.Events, f.Start)
	}
}

// TestSpecAliases is the specification's aliases example: an internal
// error and a new connection whose source and destination are swapped.
func TestSpecAliases(t *testing.T) {
	set := loadSpec(t, `title: Error then connection back
id: 71111111-2222-4333-8444-555555555555
correlation:
    type: temporal
    rules:
        - internal_error
        - new_network_connection
    group-by:
        - internal_ip
        - remote_ip
    timespan: 10s
    aliases:
        internal_ip:
            internal_error: destination.ip
            new_network_connection: source.ip
        remote_ip:
            internal_error: source.ip
            new_network_connection: destination.ip
---
title: Internal error
name: internal_error
logsource:
    product: windows
detection:
    selection:
        http.response.status_code: 500
    condition: selection
---
title: New network connection
name: new_network_connection
logsource:
    product: windows
detection:
    selection:
        event.outcome: success
    condition: selection
`)
	ev := func(id string, sec int, status, decision, src, dst string) evidence.Event {
		e := winEvent(id, sec, status, "svc", "host-a", src)
		e.Decision, e.DstIP = decision, dst
		return e
	}
	evs := []evidence.Event{
		ev("err", 0, "500", "", "203.0.113.9", "10.0.0.5"),
		// the same addresses, the other way round: the connection back
		ev("back", 5, "", "success", "10.0.0.5", "203.0.113.9"),
		// the same addresses the same way round: not it
		ev("same", 6, "", "success", "203.0.113.9", "10.0.0.5"),
		// another error, then a connection back 20s later: too late
		ev("err2", 100, "500", "", "198.51.100.7", "10.0.0.6"),
		ev("late", 120, "", "success", "10.0.0.6", "198.51.100.7"),
	}
	fs := findingsOf(scan(t, set.Rules, evs), "71111111-2222-4333-8444-555555555555")
	if len(fs) != 1 || strings.Join(fs[0].Events, " ") != "err back" {
		t.Fatalf("findings %+v, want err and back", fs)
	}
}

func TestTemporalOrderedCondition(t *testing.T) {
	set := loadText(t, `title: Two of three in order
id: 81111111-2222-4333-8444-555555555555
correlation:
    type: temporal_ordered
    rules: [denied_request, paste_site, big_post]
    group-by: [agent]
    timespan: 1m
    condition:
        gte: 2
`+members+`---
title: Big post
name: big_post
logsource:
    category: proxy
detection:
    sel:
        cs-method: POST
    condition: sel
`)
	for _, r := range set.Refused {
		t.Fatalf("refused: %v", r)
	}
	post := func(id, agent string, sec int) evidence.Event {
		return request(id, agent, sec, "POST", "https://x.example/up", "x.example")
	}
	evs := []evidence.Event{
		// agent-1: a denial, then a post: two in order, a hit
		denied("a1", "agent-1", 0, "a.example"), post("a2", "agent-1", 10),
		// agent-2: a post, then a denial: one in order at most, none
		post("b1", "agent-2", 0), denied("b2", "agent-2", 10, "a.example"),
	}
	if got := summary(scan(t, set.Rules, evs), "81111111-2222-4333-8444-555555555555"); got != "agent-1:2" {
		t.Errorf("findings %q, want agent-1's two", got)
	}
}

func sortEvents(evs []evidence.Event) {
	sort.SliceStable(evs, func(i, j int) bool { return detect.Before(&evs[i], &evs[j]) })
}
