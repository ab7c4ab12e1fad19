package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// No silent zero on the command line: a query that cannot read is an
// error with its fix on stderr and exit 2; one that reads is said how.
func TestSearchSaysHowAQueryReads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "incident")
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLedger(t, src, 300)
	if code, out, errOut := cordon("ingest", "--incident", dir, src); code != 0 {
		t.Fatalf("ingest: %d %s %s", code, out, errOut)
	}
	for _, c := range []struct{ q, want string }{
		{"nosuchfield:foo", `unknown field "nosuchfield"`},
		{"AGENT:agent-3", "did you mean agent?"},
		{"+(", "without )"},
		{"agent:agent-3 AND", "AND with nothing after it"},
	} {
		code, _, errOut := cordon("search", "--incident", dir, c.q)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q", c.q, code, errOut, c.want)
		}
	}
	// both clauses are required: the agent's curl calls, not every curl
	code, out, errOut := cordon("search", "--incident", dir, "--json", "--limit", "1000", "agent:agent-3", "cmdline:curl")
	if n := strings.Count(out, "\n"); code != 0 || n != 60 || !strings.Contains(errOut, "read as: agent:agent-3 AND cmdline:curl") {
		t.Errorf("unsigned clauses: exit %d, %d events, stderr %q", code, n, errOut)
	}
	// an enumeration's value in capitals, as the tables show it, finds the
	// same events as in lower case (issue 33)
	code, out, errOut = cordon("search", "--incident", dir, "--json", "--limit", "1000", "KIND:tool_call")
	if code != exitUsage {
		t.Errorf("a field name in capitals: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut = cordon("search", "--incident", dir, "--json", "--limit", "1000", "kind:TOOL_CALL", "agent:agent-3")
	if n := strings.Count(out, "\n"); code != 0 || n != 60 || !strings.Contains(errOut, "read as: kind:tool_call AND agent:agent-3") {
		t.Errorf("kind:TOOL_CALL: exit %d, %d events, stderr %q", code, n, errOut)
	}
	code, _, errOut = cordon("search", "--incident", dir, "agent:AGENT-3")
	if code != 0 || !strings.Contains(errOut, "agent:agent-3 has") {
		t.Errorf("a value in another case: exit %d, stderr %q", code, errOut)
	}
}

// cordon rules check names the rules, saved searches and history entries
// whose meaning changed, and refuses the rules until they are rewritten.
func TestRulesCheck(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "incident")
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLedger(t, src, 10)
	if code, out, errOut := cordon("ingest", "--incident", dir, src); code != 0 {
		t.Fatalf("ingest: %d %s %s", code, out, errOut)
	}
	rule := `id: deny-calls
title: Denied tool calls
severity: low
phase: detect
explain: "{{count}} in {{span}}"
query: "kind:tool_call decision:deny"
correlation:
  type: event_count
  window: 5m
  condition: {gte: 3}
`
	rules := filepath.Join(dir, "rules.yaml")
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(rules, rule)
	write(filepath.Join(dir, "cordon.yaml"), "rules: rules.yaml\n")
	write(filepath.Join(dir, "history.json"), `["+agent:agent-3 curl", "agent:agent-3"]`)
	code, out, errOut := cordon("rules", "check", "--incident", dir)
	for _, want := range []string{
		`rules.yaml:6: rule "kind:tool_call decision:deny" changed meaning (refused until rewritten)`,
		"to keep the old meaning write: kind:tool_call OR decision:deny",
		`search history: history "+agent:agent-3 curl" changed meaning`,
		"it read:   agent:agent-3\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("rules check lacks %q:\n%s", want, out)
		}
	}
	if code == 0 || strings.Contains(out, `"agent:agent-3"`) || !strings.Contains(errOut, "1 rules refused") {
		t.Errorf("rules check: exit %d, stderr %q:\n%s", code, errOut, out)
	}
	if code, _, errOut := cordon("findings", "--incident", dir); code == 0 || !strings.Contains(errOut, "changed meaning") {
		t.Errorf("findings ran a refused rule: exit %d %s", code, errOut)
	}
	// rewritten with the operator spelled out, it reads the same in both
	write(rules, strings.Replace(rule, "kind:tool_call decision:deny", "kind:tool_call OR decision:deny", 1))
	if code, out, errOut := cordon("rules", "check", "--incident", dir); code != 0 || strings.Contains(out, "rules.yaml") {
		t.Errorf("after the rewrite: exit %d %s\n%s", code, errOut, out)
	}
}
