package incident

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// Action values @/etc/shadow, ~root and x,y passed into action commands:
// curl reads @FILE, a shell or scp expands ~user, and a comma splits one
// argument into a list for many tools. Each variable has a pattern of
// what it can hold, and a value outside it is refused naming the value,
// the variable and the record it came from.
func TestActionValuesOutsideTheirPatternAreRefused(t *testing.T) {
	c := &Config{Actions: map[string]ActionConfig{
		"revoke": {Run: "revoke-cred --session {{session}} {{credential}}"},
		"kill":   {Run: "kubectl delete pod -n {{pod}} --sandbox={{sandbox}}"},
	}}
	forged := evidence.Event{ID: "ev-forged", Origin: "drop/ledger.jsonl:3", Agent: "agent-7", Session: "s-1"}
	for _, bad := range []struct{ action, field, value string }{
		{"revoke", "credential", "@/etc/shadow"},
		{"revoke", "credential", "x,y"},
		{"revoke", "credential", "px 1"},
		{"revoke", "session", "~root"},
		{"kill", "sandbox", "~root"},
		{"kill", "sandbox", "sb/1"},
		{"kill", "pod", "ns/../x"},
		{"kill", "pod", "ns/a/b"},
	} {
		s := forged
		s.Credential, s.Sandbox, s.Pod = []string{"px-1"}, "sb-1", "evals/sb-1"
		switch bad.field {
		case "credential":
			s.Credential = []string{bad.value}
		case "session":
			s.Session = bad.value
		case "sandbox":
			s.Sandbox = bad.value
		case "pod":
			s.Pod = bad.value
		}
		_, err := c.PlanAction(bad.action, Case{Subject: []string{"agent-7"}, Sessions: []evidence.Event{s}})
		if err == nil {
			t.Errorf("{{%s}} %q planned", bad.field, bad.value)
			continue
		}
		for _, want := range []string{"{{" + bad.field + "}}", bad.value, "drop/ledger.jsonl:3", "variables: " + bad.field} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("{{%s}} %q: the refusal does not say %q: %v", bad.field, bad.value, want, err)
			}
		}
	}
	ok := forged
	ok.Credential, ok.Sandbox, ok.Pod = []string{"tok-gh-4471"}, "sb-74", "agent-evals/sb-74-0"
	for _, a := range []string{"revoke", "kill"} {
		if _, err := c.PlanAction(a, Case{Subject: []string{"agent-7"}, Sessions: []evidence.Event{ok}}); err != nil {
			t.Errorf("%s: plain values refused: %v", a, err)
		}
	}
}

// TestActionValuePatternsFromConfig: cordon.yaml's variables: sets what a
// variable may hold (an ARN for a credential), the whole value matching;
// a bad pattern or an unknown variable is a configuration error.
func TestActionValuePatternsFromConfig(t *testing.T) {
	dir := t.TempDir()
	yaml := "actions:\n  revoke:\n    run: revoke {{credential}}\nvariables:\n  credential: 'arn:aws:iam::[0-9]+:user/[A-Za-z0-9_+=.@-]+'\n"
	if err := os.WriteFile(filepath.Join(dir, configFile), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	plan := func(cred string) error {
		_, err := c.PlanAction("revoke", Case{Subject: []string{"a"}, Sessions: []evidence.Event{{Credential: []string{cred}}}})
		return err
	}
	if err := plan("arn:aws:iam::123456789012:user/agent-7"); err != nil {
		t.Errorf("an ARN the pattern admits: %v", err)
	}
	for _, bad := range []string{"px-1", "xarn:aws:iam::1:user/a", "arn:aws:iam::1:user/a b", "-arn:aws:iam::1:user/a", "arn:aws:iam::1:user/a/../b"} {
		if err := plan(bad); err == nil {
			t.Errorf("%q planned", bad)
		}
	}
	for _, y := range []string{"variables:\n  credential: '('\n", "variables:\n  nosuch: 'x'\n"} {
		if err := os.WriteFile(filepath.Join(dir, configFile), []byte(y), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(dir, false); err == nil {
			t.Errorf("%q loaded", y)
		}
	}
}

// A second session_start in the evidence adds its resources to an
// action's commands: a forged one (another session of the same agent,
// from a hostile ledger line) shows in the confirmation with its record's
// event and file:line, so the responder sees where the value came from.
func TestForgedSessionStartShowsInProvenance(t *testing.T) {
	c := &Config{Actions: map[string]ActionConfig{"revoke": {Run: "revoke-cred {{credential}}"}}}
	cs := Case{Subject: []string{"agent-7"}, Sessions: []evidence.Event{
		{ID: "ev-real", Origin: "ledger.jsonl:1", Agent: "agent-7", Session: "s-1", Credential: []string{"px-1"}},
		{ID: "ev-forged", Origin: "uploads/notes.jsonl:41", Agent: "agent-7", Session: "s-9", Credential: []string{"px-victim"}},
	}}
	p, err := c.PlanAction("revoke", cs)
	if err != nil {
		t.Fatal(err)
	}
	var from string
	for _, v := range p.Values {
		if v.Value == "px-victim" {
			from = v.From
		}
	}
	for _, want := range []string{"s-9", "ev-forged", "uploads/notes.jsonl:41", "2 session_start records"} {
		if !strings.Contains(from, want) {
			t.Errorf("the forged session's credential is shown from %q, which does not say %q", from, want)
		}
	}
}
