package playbook_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/cordon-ir/cordon/playbook"
)

func TestExpandFansOut(t *testing.T) {
	v := playbook.Vars{
		"session":    {"s-1", "s-2"},
		"credential": {"px-1", "px-2", "px-3"},
		"agent":      {"agent-7"},
	}
	for _, c := range []struct {
		tmpl string
		want []string
	}{
		{"+kind:tool_call", []string{"+kind:tool_call"}},
		{"+agent:{{agent}}", []string{`+agent:"agent-7"`}},
		{"+session:{{session}} +kind:prompt", []string{`+session:"s-1" +kind:prompt`, `+session:"s-2" +kind:prompt`}},
		{"+session:{{ session }} +user:{{credential}}", []string{
			`+session:"s-1" +user:"px-1"`, `+session:"s-1" +user:"px-2"`, `+session:"s-1" +user:"px-3"`,
			`+session:"s-2" +user:"px-1"`, `+session:"s-2" +user:"px-2"`, `+session:"s-2" +user:"px-3"`,
		}},
		// A variable used twice takes the same value in both places.
		{"+session:{{session}} -run:{{session}}", []string{`+session:"s-1" -run:"s-1"`, `+session:"s-2" -run:"s-2"`}},
	} {
		got, err := playbook.Expand(c.tmpl, v)
		if err != nil {
			t.Errorf("Expand(%q): %v", c.tmpl, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Expand(%q)\n got %q\nwant %q", c.tmpl, got, c.want)
		}
	}
}

func TestExpandMissing(t *testing.T) {
	_, err := playbook.Expand("+agent:{{agent}} +session:{{session}} +pod:{{pod}}", playbook.Vars{"session": {"s-1"}})
	if !errors.Is(err, playbook.ErrMissingVar) {
		t.Fatalf("err %v, want ErrMissingVar", err)
	}
	var me *playbook.MissingVarError
	if !errors.As(err, &me) || !reflect.DeepEqual(me.Names, []string{"agent", "pod"}) {
		t.Errorf("missing %v, want [agent pod]", me)
	}
	if !strings.Contains(err.Error(), "{{agent}}, {{pod}}") {
		t.Errorf("error %q does not name the variables", err)
	}
	// Setting no value, or only empty ones, leaves the variable missing.
	v := playbook.Vars{}
	v.Set("agent", "", "")
	if _, err := playbook.Expand("+agent:{{agent}}", v); !errors.Is(err, playbook.ErrMissingVar) {
		t.Errorf("empty value: %v, want ErrMissingVar", err)
	}
}

// Values come from the evidence the agent wrote: whatever they hold, a
// value stays one term of the field it is given to.
func TestExpandQuotesHostileValues(t *testing.T) {
	for _, val := range []string{
		`x" +agent:*`,
		`x\" +agent:*`,
		`x\`,
		`a b -kind:session_end`,
		`{{session}}`,
		`*`,
		"line\nbreak",
		`"`,
	} {
		v := playbook.Vars{"credential": {val}, "session": {"s-9"}}
		got, err := playbook.Expand("+credential:{{credential}}", v)
		if err != nil {
			t.Fatal(err)
		}
		q, err := query.NewQueryStringQuery(got[0]).Parse()
		if err != nil {
			t.Errorf("value %q renders %q, which does not parse: %v", val, got[0], err)
			continue
		}
		b, ok := q.(*query.BooleanQuery)
		if !ok || b.Should != nil || b.MustNot != nil {
			t.Errorf("value %q renders %q = %#v, want one required clause", val, got[0], q)
			continue
		}
		conj, ok := b.Must.(*query.ConjunctionQuery)
		if !ok || len(conj.Conjuncts) != 1 {
			t.Errorf("value %q renders %q: %d required clauses, want 1", val, got[0], len(conj.Conjuncts))
			continue
		}
		p, ok := conj.Conjuncts[0].(*query.MatchPhraseQuery)
		if !ok || p.FieldVal != "credential" || p.MatchPhrase != val {
			t.Errorf("value %q renders %q = %#v, want the phrase %q on credential", val, got[0], conj.Conjuncts[0], val)
		}
	}
}

func TestExpandText(t *testing.T) {
	v := playbook.Vars{"credential": {"px-1", `tok"2`}, "agent": {"agent-7"}}
	got, err := playbook.ExpandText("Revoke {{credential}} of {{agent}}", v)
	if err != nil || got != `Revoke px-1, tok"2 of agent-7` {
		t.Errorf("ExpandText = %q, %v", got, err)
	}
	got, err = playbook.ExpandText("Stop {{session}} of {{agent}}", v)
	if !errors.Is(err, playbook.ErrMissingVar) || got != "Stop {{session}} of agent-7" {
		t.Errorf("ExpandText with a missing variable = %q, %v", got, err)
	}
}

func TestTimeVariables(t *testing.T) {
	v := playbook.Vars{}
	at := time.Date(2026, 9, 2, 14, 21, 3, 120000000, time.FixedZone("CEST", 2*3600))
	v.SetTime(playbook.VarContainedAt, at)
	if got := v[playbook.VarContainedAt][0]; got != "2026-09-02T12:21:03.12Z" {
		t.Errorf("SetTime wrote %q", got)
	}
	if got, ok := v.Time(playbook.VarContainedAt); !ok || !got.Equal(at) {
		t.Errorf("Time = %v, %v", got, ok)
	}
	got, err := playbook.Expand("time:>={{contained_at}}", v)
	if err != nil || got[0] != `time:>="2026-09-02T12:21:03.12Z"` {
		t.Errorf("Expand time = %q, %v", got, err)
	}
	for _, n := range playbook.TimeVariables() {
		if !playbook.IsVariable(n) || !playbook.IsTimeVariable(n) {
			t.Errorf("%s is not a time variable", n)
		}
	}
	if playbook.IsTimeVariable("agent") {
		t.Error("agent is a time variable")
	}
}
