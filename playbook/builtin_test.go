package playbook_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/playbook"
)

// incidentVars are the persistence-after-kill sample's values (see
// sample-incidents/persistence-after-kill/README.md), with both forms of
// the container id.
func incidentVars() playbook.Vars {
	return playbook.Vars{
		"agent":        {"agent-21"},
		"session":      {"s-305"},
		"run":          {"r-0902a"},
		"model":        {"acme-large-2026-08"},
		"sandbox":      {"sb-118"},
		"ip":           {"10.0.4.14"},
		"container":    {"3af6a66b53b6", "3af6a66b53b64570c3acbb395653576d6eb2b2a00ea0bcaa1aeda3e0d19544ef"},
		"pod":          {"agent-evals/sandbox-sb-118"},
		"credential":   {"px-s305", "tok-data-305", "wh-305"},
		"since":        {"2026-09-02T13:30:00Z"},
		"until":        {"2026-09-02T15:21:06Z"},
		"contained_at": {"2026-09-02T14:21:03Z"},
	}
}

func TestBuiltinLintsClean(t *testing.T) {
	_, probs := playbook.Parse(playbook.BuiltinName, playbook.BuiltinYAML())
	for _, p := range probs {
		t.Error(p)
	}
}

func TestBuiltinPhasesAndLayers(t *testing.T) {
	pb := playbook.Builtin()
	var phases []string
	for _, ph := range pb.Phases {
		phases = append(phases, ph.ID)
	}
	if got, want := strings.Join(phases, " "), "detect triage attribute contain eradicate recover review"; got != want {
		t.Errorf("phases %q, want %q", got, want)
	}
	contain, ok := pb.Phase("contain")
	if !ok {
		t.Fatal("no contain phase")
	}
	// The kill switch: first the step that stops the agent and records
	// contained_at, then one step per layer in order, each checked after
	// contained_at.
	if first := contain.Steps[0]; first.Sets != playbook.VarContainedAt || first.Layer != "" {
		t.Errorf("first contain step %s: sets %q layer %q, want sets contained_at and no layer", first.ID, first.Sets, first.Layer)
	}
	var layers []playbook.Layer
	for _, st := range contain.Steps[1:] {
		layers = append(layers, st.Layer)
		if st.Check == nil {
			t.Errorf("layer step %s has no check", st.ID)
			continue
		}
		if st.Check.After != playbook.VarContainedAt || st.Check.Expect != playbook.ExpectNone || len(st.Check.Coverage) == 0 {
			t.Errorf("layer step %s: check after %q expect %q coverage %d; want after contained_at, expect none, a coverage", st.ID, st.Check.After, st.Check.Expect, len(st.Check.Coverage))
		}
	}
	want := playbook.Layers()
	if len(layers) != len(want) {
		t.Fatalf("layers %v, want %v", layers, want)
	}
	for i := range want {
		if layers[i] != want[i] {
			t.Errorf("layer %d is %s, want %s", i, layers[i], want[i])
		}
	}
	if got := len(pb.LayerSteps()); got != 7 {
		t.Errorf("LayerSteps: %d, want 7", got)
	}
}

// Every template of the built-in renders with an incident's values into
// queries the store accepts, and its text leaves no variable unfilled.
func TestBuiltinRenders(t *testing.T) {
	pb := playbook.Builtin()
	v := incidentVars()
	for _, r := range pb.Steps() {
		s := r.Step
		for _, q := range s.Queries {
			qs, err := playbook.Expand(q.Query, v)
			if err != nil {
				t.Errorf("%s: %q: %v", s.ID, q.Query, err)
			}
			for _, x := range qs {
				if err := evidence.ValidateQuery(x); err != nil {
					t.Errorf("%s: %q renders %q: %v", s.ID, q.Query, x, err)
				}
			}
		}
		for _, text := range append([]string{s.Title, s.Guidance, s.DoneWhen}, s.Checklist...) {
			if _, err := playbook.ExpandText(text, v); err != nil {
				t.Errorf("%s: %v", s.ID, err)
			}
		}
		if s.Check == nil {
			continue
		}
		rc, err := s.Check.Render(v)
		if err != nil || len(rc.Missing) > 0 || len(rc.Queries) == 0 {
			t.Errorf("%s: check renders %+v, %v", s.ID, rc, err)
		}
		for _, x := range append(rc.Queries, rc.Coverage...) {
			if err := evidence.ValidateQuery(x); err != nil {
				t.Errorf("%s: check query %q: %v", s.ID, x, err)
			}
		}
	}
}

// A check still renders the queries it can when a variable is unknown,
// and says which.
func TestCheckRenderPartial(t *testing.T) {
	st, ok := playbook.Builtin().Step("contain.processes")
	if !ok {
		t.Fatal("no contain.processes")
	}
	v := incidentVars()
	rc, err := st.Step.Check.Render(v)
	if err != nil || len(rc.Queries) != 3 { // two container forms, one agent
		t.Fatalf("queries %q, %v; want 3", rc.Queries, err)
	}
	delete(v, "container")
	rc, err = st.Step.Check.Render(v)
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Missing) != 1 || rc.Missing[0] != "container" || len(rc.Queries) != 1 {
		t.Errorf("queries %q missing %v, want 1 query and [container]", rc.Queries, rc.Missing)
	}
	_, err = st.Step.Check.Render(playbook.Vars{})
	if !errors.Is(err, playbook.ErrMissingVar) {
		t.Errorf("no variables: %v, want ErrMissingVar", err)
	}
}

// The built-in's checks need only what a ledger session_start binds (no
// pod: the ledger does not name one), so every check can run on an
// incident whose sensor events carry no pod.
func TestBuiltinChecksNeedOnlySessionKeys(t *testing.T) {
	v := incidentVars()
	delete(v, "pod")
	for _, r := range playbook.Builtin().Steps() {
		c := r.Step.Check
		if c == nil {
			continue
		}
		if _, err := playbook.ExpandAll(c.Queries, v); err != nil {
			t.Errorf("%s: queries: %v", r.Step.ID, err)
		}
		if _, err := playbook.ExpandAll(c.Coverage, v); err != nil {
			t.Errorf("%s: coverage: %v", r.Step.ID, err)
		}
	}
}
