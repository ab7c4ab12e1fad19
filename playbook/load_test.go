package playbook_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/playbook"
)

const goodPlaybook = `id: small
title: Small
phases:
  - id: contain
    title: Contain
    steps:
      - id: contain.stop
        title: Stop it
        sets: contained_at
      - id: contain.credentials
        title: Revoke {{credential}}
        layer: cached-credentials
        guidance: |
          Revoke them all.
        checklist:
          - Revoke {{credential}}
        queries:
          - title: Uses
            query: '+user:{{credential}}'
        check:
          title: No use after containment
          expect: none
          after: contained_at
          queries:
            - '+credential:{{credential}}'
          coverage:
            - '+source:proxy'
        actions: [revoke-credentials]
        done_when: revoked
`

func TestParseGood(t *testing.T) {
	pb, probs := playbook.Parse("p.yaml", []byte(goodPlaybook))
	if len(probs) > 0 {
		t.Fatalf("problems: %v", probs)
	}
	st, ok := pb.Step("contain.credentials")
	if !ok || st.Phase.ID != "contain" || st.Step.Layer != playbook.LayerCachedCredentials || st.Step.Line != 10 {
		t.Fatalf("step %+v", st)
	}
	c := st.Step.Check
	if c.Expect != playbook.ExpectNone || c.After != "contained_at" || len(c.Queries) != 1 || len(c.Coverage) != 1 {
		t.Errorf("check %+v", c)
	}
	if got := strings.Join(pb.Variables(), ","); got != "credential,contained_at" {
		t.Errorf("Variables() = %s", got)
	}
	if pb.Origin != "p.yaml:1" {
		t.Errorf("origin %s", pb.Origin)
	}
}

// Every problem in a playbook is reported at its line and column, so the
// person writing it can fix them without guessing.
func TestLintProblemsNameTheLine(t *testing.T) {
	r := func(old, new string) string {
		if !strings.Contains(goodPlaybook, old) {
			panic("test: no " + old)
		}
		return strings.Replace(goodPlaybook, old, new, 1)
	}
	for _, c := range []struct {
		name, yaml string
		want       []string // every problem, in order
	}{
		{"unknown top key", r("title: Small", "title: Small\nowner: me"),
			[]string{`p.yaml:3:1: unknown field "owner" in the playbook`}},
		{"unknown step key", r("        sets: contained_at", "        sets: contained_at\n        layr: queued-jobs"),
			[]string{`p.yaml:10:9: unknown field "layr" in a step`}},
		{"unknown check key", r("          expect: none", "          expect: none\n          expected: none"),
			[]string{`p.yaml:23:11: unknown field "expected" in a check`}},
		{"missing id and title", r("id: small\ntitle: Small\n", ""),
			[]string{`p.yaml:1:1: the playbook has no id`, `p.yaml:1:1: the playbook has no title`}},
		{"no phases", "id: x\ntitle: X\nphases: []\n",
			[]string{`p.yaml:3:9: phases: want a list`}},
		{"step without title", r("        title: Stop it\n", ""),
			[]string{`p.yaml:7:9: step contain.stop has no title`}},
		{"empty title", r("title: Stop it", "title: ''"),
			[]string{`p.yaml:8:9: title is empty`}},
		{"null step id", r("id: contain.stop", "id:"),
			[]string{`p.yaml:7:9: id is empty`}},
		{"duplicate step", r("id: contain.credentials", "id: contain.stop"),
			[]string{`p.yaml:10:9: step id contain.stop is already used at line 7`}},
		{"duplicate phase", goodPlaybook + "  - id: contain\n    title: Again\n    steps:\n      - {id: again, title: Again}\n",
			[]string{`p.yaml:30:5: phase id contain is already used at line 4`}},
		{"step id format", r("id: contain.stop", "id: Contain_Stop"),
			[]string{`p.yaml:7:13: step id "Contain_Stop": want lowercase words`}},
		{"layer", r("layer: cached-credentials", "layer: credentials"),
			[]string{`p.yaml:12:16: layer "credentials" is not one of queued-jobs, active-tool-calls,`}},
		{"expect", r("expect: none", "expect: zero"),
			[]string{`p.yaml:22:19: expect "zero": want none or some`}},
		{"after", r("after: contained_at", "after: session"),
			[]string{`p.yaml:23:18: after "session": want a time variable (since, until, contained_at)`}},
		{"sets", r("sets: contained_at", "sets: now"),
			[]string{`p.yaml:9:15: sets "now": want a time variable`}},
		{"unknown variable in title", r("title: Revoke {{credential}}", "title: Revoke {{credentials}}"),
			[]string{`p.yaml:11:16: title: unknown variable {{credentials}}`}},
		{"unknown variable in a block, at its line", r("Revoke them all.", "Revoke them all.\n          Then call {{oncall}}."),
			[]string{`p.yaml:15:19: guidance: unknown variable {{oncall}}`}},
		{"unclosed braces", r("- Revoke {{credential}}", "- Revoke {{credential"),
			[]string{`p.yaml:16:13: a checklist item: {{ without }}`}},
		{"query syntax", r(`'+user:{{credential}}'`, `'+user:{{credential}} +kind:'`),
			[]string{`p.yaml:19:20: query "+user:{{credential}} +kind:": kind: has no value`}},
		{"query unknown field", r(`'+user:{{credential}}'`, `'+usr:{{credential}}'`),
			[]string{`p.yaml:19:20: query "+usr:{{credential}}": {{credential}} on usr: a quoted value finds nothing`}},
		{"query unknown field without variable", r(`'+source:proxy'`, `'+sorce:proxy'`),
			[]string{`p.yaml:27:15: a coverage query "+sorce:proxy": unknown field "sorce"`}},
		{"variable inside quotes", r(`'+credential:{{credential}}'`, `'+credential:"{{credential}}"'`),
			[]string{`p.yaml:25:15: a check query "+credential:\"{{credential}}\"": {{credential}} is inside quotes`}},
		{"variable inside a token", r(`'+credential:{{credential}}'`, `'+credential:px-{{credential}}'`),
			[]string{`p.yaml:25:15: a check query "+credential:px-{{credential}}": {{credential}} must be the whole value`}},
		{"variable on a text field", r(`'+credential:{{credential}}'`, `'+cmdline:{{credential}}'`),
			[]string{`p.yaml:25:15: a check query "+cmdline:{{credential}}": {{credential}} on cmdline: a quoted value finds nothing on a text`}},
		{"time variable as a value", r(`'+credential:{{credential}}'`, `'+credential:{{since}}'`),
			[]string{`{{since}} is a time: use it as time:>={{since}}`}},
		{"check without queries", r("          queries:\n            - '+credential:{{credential}}'\n", ""),
			[]string{`p.yaml:21:11: a check has no queries`}},
		{"check with an empty list", r("          queries:\n            - '+credential:{{credential}}'\n", "          queries: []\n"),
			[]string{`p.yaml:24:20: a check needs at least one query`}},
		{"action name", r("actions: [revoke-credentials]", "actions: [Revoke Credentials]"),
			[]string{`p.yaml:28:19: action "Revoke Credentials": want the name of a command template`}},
		{"not YAML", "id: x\n\ttitle: y\n",
			[]string{`p.yaml:2:1: not YAML`}},
		{"two documents", goodPlaybook + "---\nid: other\n",
			[]string{`p.yaml:30:1: a file holds one playbook`}},
		{"empty", "# nothing\n",
			[]string{`p.yaml:1:1: empty file`}},
		{"several, sorted by line", r("expect: none", "expect: zero") + "owner: me\n",
			[]string{`p.yaml:22:19: expect "zero"`, `p.yaml:30:1: unknown field "owner"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pb, probs := playbook.Parse("p.yaml", []byte(c.yaml))
			if pb != nil {
				t.Errorf("a playbook with problems was returned")
			}
			if len(probs) != len(c.want) {
				t.Fatalf("%d problems, want %d:\n%v", len(probs), len(c.want), playbook.Problems(probs))
			}
			for i, p := range probs {
				if !strings.Contains(p.Error(), c.want[i]) {
					t.Errorf("problem %q\nwant it to contain %q", p.Error(), c.want[i])
				}
			}
		})
	}
}

// Anchors and aliases are followed, so shared query lists can be written
// once.
func TestParseFollowsAliases(t *testing.T) {
	y := strings.Replace(goodPlaybook, "          coverage:\n            - '+source:proxy'\n",
		"          coverage: &proxy\n            - '+source:proxy'\n", 1) +
		"  - id: review\n    title: Review\n    steps:\n      - id: review.again\n        title: Again\n" +
		"        check: {title: again, expect: none, queries: *proxy}\n"
	pb, probs := playbook.Parse("p.yaml", []byte(y))
	if len(probs) > 0 {
		t.Fatal(playbook.Problems(probs))
	}
	st, _ := pb.Step("review.again")
	if len(st.Step.Check.Queries) != 1 || st.Step.Check.Queries[0] != "+source:proxy" {
		t.Errorf("queries through an alias: %q", st.Step.Check.Queries)
	}
}

func TestLoadAndLoadDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("a.yaml", goodPlaybook)
	if pb, err := playbook.Load(good); err != nil || pb.ID != "small" {
		t.Fatalf("Load: %v, %v", pb, err)
	}
	pbs, err := playbook.LoadDir(dir)
	if err != nil || len(pbs) != 1 {
		t.Fatalf("LoadDir: %v, %v", pbs, err)
	}
	write("b.yml", goodPlaybook)
	write("c.yaml", strings.Replace(goodPlaybook, "expect: none", "expect: maybe", 1))
	write("notes.txt", "not a playbook")
	_, err = playbook.LoadDir(dir)
	if !errors.Is(err, playbook.ErrPlaybook) {
		t.Fatalf("LoadDir: %v, want ErrPlaybook", err)
	}
	msg := err.Error()
	for _, want := range []string{"b.yml:1:1: playbook id small is already defined at " + good + ":1", "c.yaml:22:19: expect \"maybe\""} {
		if !strings.Contains(msg, want) {
			t.Errorf("LoadDir error:\n%s\nwant it to contain %q", msg, want)
		}
	}
	if _, err := playbook.Load(filepath.Join(dir, "c.yaml")); !errors.Is(err, playbook.ErrPlaybook) {
		t.Errorf("Load bad file: %v", err)
	}
}
