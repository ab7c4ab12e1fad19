package detect_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/detect"
)

const goodRule = `id: probe
title: Probing
severity: high
phase: detect
explain: "{{count}} denials to {{distinct}} hosts in {{span}}"
query: "+decision:deny"
correlation:
  type: value_count
  field: dst_host
  window: 10m
  condition: {gte: 5}
`

// Every problem in a rule file is reported at its line, so the person
// writing rules can fix them without guessing.
func TestLoaderErrorsNameTheLine(t *testing.T) {
	for _, c := range []struct {
		name, yaml, want string
	}{
		{"unknown field", strings.Replace(goodRule, "phase: detect", "phase: detect\nserverity: low", 1), `r.yaml:5: unknown field "serverity"`},
		{"bad severity", strings.Replace(goodRule, "severity: high", "severity: hgih", 1), `r.yaml:3: severity "hgih" is not one of`},
		{"bad phase", strings.Replace(goodRule, "phase: detect", "phase: respond", 1), `r.yaml:4: phase "respond"`},
		{"bad id", strings.Replace(goodRule, "id: probe", "id: Probe_1", 1), `r.yaml:1: id "Probe_1"`},
		{"bad window", strings.Replace(goodRule, "window: 10m", "window: 10 minutes", 1), `r.yaml:10: window "10 minutes": want a Go duration`},
		{"query syntax", strings.Replace(goodRule, `query: "+decision:deny"`, `query: '+decision:"deny'`, 1), `r.yaml:6: query`},
		{"query field", strings.Replace(goodRule, `query: "+decision:deny"`, `query: "+decison:deny"`, 1), `r.yaml:6: query "+decison:deny": unknown field "decison"`},
		{"query phrase", strings.Replace(goodRule, `query: "+decision:deny"`, `query: 'cmdline:"/run/secrets"'`, 1), `r.yaml:6: query "cmdline:\"/run/secrets\"": cmdline:"/run/secrets": a quoted phrase finds nothing here`},
		{"query list item", strings.Replace(goodRule, `query: "+decision:deny"`, "query:\n  - \"+decision:deny\"\n  - \"+knd:x\"", 1), `r.yaml:8: query "+knd:x": unknown field "knd"`},
		{"template variable", strings.Replace(strings.Replace(goodRule, "type: value_count", "type: event_count", 1), "  field: dst_host\n", "", 1), `r.yaml:5: explain names {{distinct}}; this correlation offers`},
		{"missing field", strings.Replace(goodRule, "  field: dst_host\n", "", 1), `r.yaml:7: value_count needs field`},
		{"correlation type", strings.Replace(goodRule, "type: value_count", "type: sum", 1), `r.yaml:8: correlation type "sum" is not one of`},
		{"condition", strings.Replace(goodRule, "{gte: 5}", "{gte: five}", 1), `r.yaml:11: condition gte: "five" is not a number`},
		{"condition op", strings.Replace(goodRule, "{gte: 5}", "{ge: 5}", 1), `r.yaml:11: condition "ge"`},
		{"no lower bound", strings.Replace(goodRule, "{gte: 5}", "{lte: 5}", 1), `r.yaml:11: value_count needs a condition with a lower bound`},
		{"steps on a count", strings.Replace(goodRule, "  field: dst_host\n", "  field: dst_host\n  steps:\n    - {query: kind:x}\n", 1), `r.yaml:10: steps belong to ordered_sequence and temporal only`},
		{"not YAML", "id: x\n\ttitle: y\n", `r.yaml:2: not YAML`},
		{"second document", goodRule + "---\n" + strings.Replace(goodRule, "id: probe", "id: probe-2\nlevel: 3", 1), `r.yaml:14: unknown field "level"`},
		{"duplicate id", goodRule + "---\n" + goodRule, `r.yaml:13: rule id probe is already defined at r.yaml:1`},
		{"empty", "# nothing\n", `r.yaml:1: no rule in file`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := detect.Parse("r.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatalf("no error, want %s", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant it to contain %q", err, c.want)
			}
			if !errors.Is(err, detect.ErrRule) {
				t.Errorf("error %v does not wrap ErrRule", err)
			}
		})
	}
}

func TestLoadDirReportsEveryFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", goodRule)
	write("b.yml", strings.Replace(goodRule, "id: probe", "id: other\ncolour: red", 1))
	write("c.yaml", strings.Replace(goodRule, "severity: high", "severity: huge", 1))
	write("notes.txt", "not a rule")
	_, err := detect.Load(dir)
	for _, want := range []string{"b.yml:2: unknown field", "c.yaml:3: severity"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
	os.Remove(filepath.Join(dir, "b.yml"))
	os.Remove(filepath.Join(dir, "c.yaml"))
	rules, err := detect.Load(dir)
	if err != nil || len(rules) != 1 || rules[0].Origin != filepath.Join(dir, "a.yaml")+":1" {
		t.Fatalf("rules %+v, err %v", rules, err)
	}
}

// The built-in rules load, each with the fields docs/rules.md documents,
// and every one of them is described there.
func TestBuiltinRules(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"boundary-probing", "destination-expansion", "tool-escalation", "credential-access",
		"credential-misuse", "persistence", "plan-divergence", "action-rate", "denial-adaptation"}
	ids := map[string]bool{}
	for _, r := range rules {
		ids[r.ID] = true
		if r.Description == "" {
			t.Errorf("%s has no description", r.ID)
		}
		if !strings.Contains(string(doc), "### "+r.ID) {
			t.Errorf("docs/rules.md has no section for %s", r.ID)
		}
	}
	for _, id := range want {
		if !ids[id] {
			t.Errorf("no built-in rule %s", id)
		}
	}
}
