package sigma

import (
	"strings"
	"testing"
)

func TestRefusals(t *testing.T) {
	cases := []struct {
		name, text string
		line, col  int
		reason     string
	}{
		{"utf16 modifier", ruleOn(`    sel:
        CommandLine|utf16le|base64offset|contains: 'ping'
    condition: sel`), 9, 9, `modifier "utf16le"`},
		{"unknown modifier", ruleOn(`    sel:
        CommandLine|sorta: 'ping'
    condition: sel`), 9, 9, `unknown modifier "sorta"`},
		{"aggregation pipe", ruleOn(`    sel:
        CommandLine: 'ping'
    condition: sel | count() by User > 5`), 10, 20, "old aggregation syntax"},
		{"unknown identifier", ruleOn(`    sel:
        CommandLine: 'ping'
    condition: sel and filter`), 10, 24, `no search identifier "filter"`},
		{"pattern without of", ruleOn(`    sel_a:
        CommandLine: 'ping'
    condition: sel_*`), 10, 16, "needs 1 of or all of"},
		{"of matches nothing", ruleOn(`    sel:
        CommandLine: 'ping'
    condition: 1 of filter_*`), 10, 21, "no search identifier matches"},
		{"unmapped field", `title: UA
logsource:
    category: proxy
detection:
    sel:
        cs-cookie|contains: 'session='
    condition: sel`, 6, 9, `field "cs-cookie" is not mapped`},
		{"logon id unmapped", ruleOn(`    sel:
        LogonId: 0
    condition: sel`), 9, 9, `field "LogonId" is not mapped`},
		{"logsource without events", `title: Windows
logsource:
    product: windows
    category: process_creation
detection:
    sel:
        Image|endswith: '\cmd.exe'
    condition: sel`, 3, 5, "names no cordon events"},
		{"lookaround", ruleOn(`    sel:
        CommandLine|re: 'curl(?!\s-s)'
    condition: sel`), 9, 25, "not a regular expression cordon can run"},
		{"all on one value", ruleOn(`    sel:
        CommandLine|contains|all: 'ping'
    condition: sel`), 9, 9, "all needs two or more values"},
		{"base64 of a wildcard", ruleOn(`    sel:
        CommandLine|base64: 'ev*l'
    condition: sel`), 9, 29, "wildcards has no meaning"},
		{"null in a list", ruleOn(`    sel:
        User:
            - root
            - null
    condition: sel`), 11, 15, "null cannot be one of a list"},
		{"bad level", `title: Lvl
level: severe
logsource:
    category: proxy
detection:
    sel:
        cs-host: a.example
    condition: sel`, 2, 8, `level "severe"`},
		{"percentile without its percentile", `title: P95
correlation:
    type: value_percentile
    rules: [a]
    group-by: [User]
    timespan: 1h
    condition:
        field: cs-bytes
        gt: 100`, 8, 9, "condition percentile belongs to value_percentile"},
		{"alias naming no field for a rule", `title: Aliased
correlation:
    type: temporal
    rules: [denied_request, paste_site]
    group-by: [ip]
    timespan: 10s
    aliases:
        ip:
            denied_request: c-ip
` + members, 8, 9, `alias "ip" names no field for rule "paste_site"`},
		{"chain grouped otherwise", `title: Chain
correlation:
    type: temporal
    rules: [many_denied, paste_site]
    group-by: [agent]
    timespan: 10m
---
title: Many denied
name: many_denied
correlation:
    type: event_count
    rules: [denied_request]
    group-by: [c-ip]
    timespan: 10m
    condition:
        gte: 3
` + members, 4, 13, `names correlation "many_denied", grouped by c-ip, not by agent`},
		{"neq on temporal", `title: Not both
correlation:
    type: temporal
    rules: [denied_request, paste_site]
    group-by: [agent]
    timespan: 10s
    condition:
        neq: 2
` + members, 8, 9, "condition neq on temporal"},
		{"group-by on analysed text", `title: By URL
correlation:
    type: event_count
    rules: [paste_site, denied_request]
    group-by: [c-uri]
    timespan: 10s
    condition:
        gte: 2
` + members, 5, 15, "c-uri is cordon's url"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := loadText(t, c.text)
			// a refused chain, or a correlation refused as it is read,
			// leaves the rules it named to run on their own
			if len(set.Rules) != 0 && !strings.HasPrefix(c.name, "chain") && c.name != "neq on temporal" {
				t.Errorf("loaded %d rule(s), want it refused", len(set.Rules))
			}
			if len(set.Refused) != 1 {
				t.Fatalf("refusals %v, want one", set.Refused)
			}
			r := set.Refused[0]
			if r.Line != c.line || r.Col != c.col || !strings.Contains(r.Reason, c.reason) {
				t.Errorf("refused at %d:%d %q, want %d:%d and %q", r.Line, r.Col, r.Reason, c.line, c.col, c.reason)
			}
			if !strings.HasSuffix(r.File, "rule.yml") || !strings.Contains(r.Error(), "rule.yml:") {
				t.Errorf("refusal %q does not name the file", r.Error())
			}
		})
	}
}
