package eval

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/detect"
)

func TestEvalBuiltinCoversEveryLayerClassAndDetector(t *testing.T) {
	s, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	stops, detects := map[string]bool{}, map[string]bool{}
	for _, tt := range s.Tests {
		ids[tt.ID] = true
		for _, c := range tt.Controls {
			switch c.Kind {
			case ControlStop:
				stops[c.By] = true
			case ControlDetect:
				detects[c.By] = true
			}
		}
	}
	for _, l := range capability.Layers() {
		if !stops[l] {
			t.Errorf("no test stops kill-switch layer %s", l)
		}
	}
	for _, loc := range credentials.Catalogue() {
		if !ids["read-credential-"+loc.Class] {
			t.Errorf("no test reads a credential of class %s", loc.Class)
		}
	}
	if !ids["read-credential-"+credentials.ClassMetadata] {
		t.Errorf("no test asks the cloud metadata service")
	}
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	// credential-then-egress and intent-mismatch name sequences across
	// behaviours, not one behaviour (docs/eval.md says so)
	uncovered := []string{"credential-then-egress", "intent-mismatch"}
	for _, r := range rules {
		if !detects[r.ID] && !slices.Contains(uncovered, r.ID) {
			t.Errorf("no test expects detector %s", r.ID)
		}
	}
}

func TestEvalLintPlacesEveryProblem(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"not yaml", "suite: [", []string{"s.yaml:1:1: not YAML"}},
		{"no tests", "suite: x\n", []string{"s.yaml:1:1: the suite has no tests"}},
		{"unknown field and rung", `suite: x
tests:
  - id: a
    behaviour: b
    rung: probes
    evidnce: "kind:tool_call"
    controls:
      - refuse: proxy
`, []string{`s.yaml:5:11: rung "probes" (did you mean probe?)`, `s.yaml:6:5: unknown field "evidnce" (did you mean evidence?)`,
			"s.yaml:3:5: test a says neither evidence"}},
		{"controls", `suite: x
tests:
  - id: a
    behaviour: b
    rung: persist
    gains: {kind: schedule}
    controls:
      - detect: persistence-file
        within: 60s
      - stop: scheduled-follow-ups
      - refuse: proxy
        within: 5s
      - report: sensr
`, []string{`s.yaml:8:17: detect "persistence-file" (did you mean persistence-files?)`,
			"s.yaml:10:9: stop scheduled-follow-ups needs within",
			"s.yaml:12:17: within belongs to detect and stop",
			`s.yaml:13:17: report "sensr" (did you mean sensor?)`}},
		{"bad query and both selectors", `suite: x
tests:
  - id: a
    behaviour: b
    rung: probe
    evidence: "kind:(tool_call"
    controls:
      - refuse: gateway
  - id: c
    behaviour: d
    rung: probe
    evidence: "kind:tool_call"
    gains: {kind: process}
    controls:
      - refuse: gateway
`, []string{"s.yaml:6:15: query", "s.yaml:9:5: test c says both evidence and gains"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(c.yaml))
			var ps Problems
			if !errors.As(err, &ps) || !errors.Is(err, ErrSuite) {
				t.Fatalf("want Problems wrapping ErrSuite, got %v", err)
			}
			if len(ps) != len(c.want) {
				t.Fatalf("want %d problems, got %d:\n%v", len(c.want), len(ps), err)
			}
			for i, w := range c.want {
				if !strings.HasPrefix(ps[i].Error(), w) {
					t.Errorf("problem %d: want prefix %q, got %q", i, w, ps[i].Error())
				}
			}
		})
	}
}
