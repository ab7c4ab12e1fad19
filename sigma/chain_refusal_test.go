package sigma

import (
	"strings"
	"testing"
)

// countOver is a correlation of type typ over retried_port (grouped by
// agent and DestinationPort), grouped by groupBy, reading field.
func countOver(typ, groupBy, field string) string {
	return `title: Chain
correlation:
    type: ` + typ + `
    rules: [retried_port]
    group-by: ` + groupBy + `
    timespan: 10m
    condition:
        field: ` + field + `
        gte: 2
` + retried
}

// What a chain cannot say is refused at its place, with the reason; the
// rules it names then run on their own.
func TestChainRefusals(t *testing.T) {
	cases := []struct {
		name, text string
		line, col  int
		reason     string
	}{
		// a match holds its group-by values only
		{"value_count of a field the match does not hold", countOver("value_count", "[agent]", "DestinationIp"), 8, 16,
			`a match of correlation "retried_port" holds only the values of its group-by (agent, DestinationPort)`},
		{"value_sum of a field the match does not hold", countOver("value_sum", "[agent]", "DestinationIp"), 8, 16,
			`a match of correlation "retried_port" holds only the values of its group-by`},
		{"value_count of its own group-by", countOver("value_count", "[agent, DestinationPort]", "DestinationPort"), 8, 16,
			"is also a group-by of this correlation: each group would hold one value of it; group by agent alone"},
		{"value_count grouped otherwise", countOver("value_count", "[DestinationIp]", "DestinationPort"), 4, 13,
			`names correlation "retried_port", grouped by agent, DestinationPort: a value_count over it groups by that group-by but its field DestinationPort (agent)`},
		{"value_avg of a field that is not a number", countOver("value_avg", "[DestinationPort]", "agent"), 8, 16,
			`condition field "agent" of correlation "retried_port" is cordon's agent, which is not a number`},
		{"event_count grouped otherwise", `title: Chain
correlation:
    type: event_count
    rules: [retried_port]
    group-by: [agent]
    timespan: 10m
    condition:
        gte: 2
` + retried, 4, 13, `names correlation "retried_port", grouped by agent, DestinationPort, not by agent as this one is`},
		{"alias naming a correlation", `title: Chain
correlation:
    type: event_count
    rules: [retried_port]
    group-by: [agent, port]
    timespan: 10m
    aliases:
        port:
            retried_port: DestinationPort
    condition:
        gte: 2
` + strings.Replace(retried, "[agent, DestinationPort]", "[agent, port]\n    aliases:\n        port:\n            connection: DestinationPort", 1), 9, 13,
			`alias "port" names a field for correlation "retried_port", whose matches hold only its own group-by`},
		{"cycle", `title: Chain
name: chain
correlation:
    type: event_count
    rules: [back]
    group-by: [agent]
    timespan: 10m
    condition:
        gte: 2
---
title: Back
name: back
correlation:
    type: event_count
    rules: [chain]
    group-by: [agent]
    timespan: 10m
    condition:
        gte: 2
`, 5, 13, `names correlation "back", which was refused: names correlation "chain", which names this one`},
		{"named correlation refused", `title: Chain
correlation:
    type: event_count
    rules: [retried_port]
    group-by: [agent, DestinationPort]
    timespan: 10m
    condition:
        gte: 2
` + strings.Replace(retried, "rules: [connection]", "rules: [connection, nothing]", 1), 4, 13,
			`names correlation "retried_port", which was refused: names rule "nothing", which no loaded rule has`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := loadText(t, c.text)
			if len(set.Refused) == 0 {
				t.Fatalf("loaded %d rule(s), refused none", len(set.Rules))
			}
			r := set.Refused[0]
			if r.Line != c.line || r.Col != c.col || !strings.Contains(r.Reason, c.reason) || r.Rule != "Chain" {
				t.Errorf("refused %q at %d:%d %q, want %d:%d and %q", r.Rule, r.Line, r.Col, r.Reason, c.line, c.col, c.reason)
			}
			if !strings.HasSuffix(r.File, "rule.yml") {
				t.Errorf("refusal %q does not name the file", r.Error())
			}
		})
	}
}
