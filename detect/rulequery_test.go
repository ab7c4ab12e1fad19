package detect_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// Every built-in rule's queries select the same events in memory
// (evidence.Matcher, as MemSource and the engine's filters evaluate them)
// as the Bleve index does, on every sample incident: a rule means the same
// on a workspace and in memory.
func TestRuleQueriesAgreeWithTheIndex(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var queries []string
	for _, r := range rules {
		queries = append(queries, r.Query...)
		for _, s := range r.Correlation.Steps {
			queries = append(queries, s.Query)
		}
	}
	for _, name := range []string{"egress-probe-exfil", "credential-theft", "persistence-after-kill"} {
		t.Run(name, func(t *testing.T) {
			evs := loadSample(t, name)
			attribution.AttributeAll(evs)
			st := indexed(t, evs)
			for _, q := range queries {
				pq, err := evidence.Parse(q)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				m, err := evidence.Compile(pq)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				var mem []string
				for i := range evs {
					if m.Match(&evs[i]) {
						mem = append(mem, evs[i].ID)
					}
				}
				hits, err := st.Search(context.Background(), evidence.Request{Query: pq, Limit: len(evs) + 1})
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				var idx []string
				for _, ev := range hits.Events {
					idx = append(idx, ev.ID)
				}
				sort.Strings(mem)
				sort.Strings(idx)
				if strings.Join(mem, ",") != strings.Join(idx, ",") {
					t.Errorf("%s: memory %d events, index %d", q, len(mem), len(idx))
				}
			}
		})
	}
}
