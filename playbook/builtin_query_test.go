package playbook

import (
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// The built-in playbook's saved searches and checks read the same in the
// query syntax as they did in Bleve's (every clause signed): a responder's
// saved search finds what it found before.
func TestBuiltinQueriesKeepTheirMeaning(t *testing.T) {
	n := 0
	for _, ref := range Builtin().Steps() {
		s := ref.Step
		qs := []string{}
		for _, q := range s.Queries {
			qs = append(qs, q.Query)
		}
		if s.Check != nil {
			qs = append(append(qs, s.Check.Queries...), s.Check.Coverage...)
		}
		for _, q := range qs {
			rendered, err := Expand(q, placeholderVars(q))
			if err != nil {
				t.Fatal(err)
			}
			old, now, changed, err := evidence.Changed(rendered[0])
			if err != nil || changed {
				t.Errorf("step %s: %q reads %s, read %s (%v)", s.ID, q, now, old, err)
			}
			n++
		}
	}
	if n < 30 {
		t.Fatalf("only %d queries checked", n)
	}
}
