package detect_test

import (
	"context"
	"slices"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/attribution/attributiontest"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// The evidence the tests read, through the one loader the packages below
// incident share (attributiontest).

func loadSample(t *testing.T, name string) []evidence.Event { return attributiontest.Sample(t, name) }

func loadFiles(t *testing.T, paths ...string) []evidence.Event {
	return attributiontest.Files(t, paths...)
}

func indexed(t *testing.T, evs []evidence.Event) evidence.Store {
	return attributiontest.Indexed(t, evs)
}

type sink struct{ evs []evidence.Event }

func (s *sink) Event(ev evidence.Event) error { s.evs = append(s.evs, ev); return nil }
func (s *sink) Reject(parse.Reject) error     { return nil }

// scanAttributed attributes events as ingest does and runs the built-in
// rules over them: the findings and capability sets a case would have.
func scanAttributed(t *testing.T, evs []evidence.Event) detect.Result {
	t.Helper()
	attribution.AttributeAll(evs)
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	r, err := (&detect.Engine{Rules: rules}).Scan(context.Background(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// passOver adds evs, in their order, to a new pass of rules that read
// the session records of first before its first event, asking it for
// its findings every askEvery events as a following console does (0:
// never), and gives the pass and its findings at the end.
func passOver(t *testing.T, rules []detect.Rule, first, evs []evidence.Event, askEvery int64) (*detect.Pass, []detect.Finding) {
	t.Helper()
	p, err := (&detect.Engine{Rules: rules}).Start(context.Background(), detect.NewMemSource(first))
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if err := p.Add(&evs[i]); err != nil {
			t.Fatal(err)
		}
		if askEvery > 0 && p.Events()%askEvery == 0 {
			p.Findings()
		}
	}
	return p, p.Findings()
}

// builtinRules are the built-in rules named ids, in that order; t fails if
// one is not built in.
func builtinRules(t *testing.T, ids ...string) []detect.Rule {
	t.Helper()
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]detect.Rule, 0, len(ids))
	for _, id := range ids {
		i := slices.IndexFunc(rules, func(r detect.Rule) bool { return r.ID == id })
		if i < 0 {
			t.Fatalf("no built-in rule %s", id)
		}
		out = append(out, rules[i])
	}
	return out
}
