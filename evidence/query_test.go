package evidence

import (
	"context"
	"strings"
	"testing"
)

// TestCountedTotalsMatchTheIndex: a total taken from the ingest counts
// must be the number the index itself finds.
func TestCountedTotalsMatchTheIndex(t *testing.T) {
	st := openFixture(t)
	s := st.(*bleveStore)
	ctx := context.Background()
	checked := 0
	for _, field := range CountedFields {
		for value := range s.Counts().Fields[field] {
			if value == "" {
				continue
			}
			if strings.ContainsAny(value, ` "'():+*?\\`) || strings.HasPrefix(value, "-") {
				continue // needs quoting, which makes a phrase query
			}
			for _, qs := range []string{field + ":" + value, "+" + field + ":" + value} {
				q := s.parse(MustParse(qs))
				counted, ok := s.countedTotal(q)
				if !ok {
					if field != "dst_host" && qs[0] == '+' {
						t.Errorf("%s: not answered from the counts", qs)
					}
					continue
				}
				indexed, err := s.count(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if counted != indexed {
					t.Errorf("%s: counts say %d, the index %d", qs, counted, indexed)
				}
				checked++
			}
		}
	}
	if q := s.parse(MustParse("agent:agent-7")); q != nil {
		if n, ok := s.countedTotal(q); !ok || n != 334 {
			t.Errorf("agent:agent-7 from the counts: %d %v, want 334", n, ok)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d totals checked", checked)
	}
	for _, qs := range []string{"agent:agent-7 decision:deny", "-agent:agent-7", "agent:agent*", "nohup", "agent:agent-7 OR agent:agent-8"} {
		q := s.parse(MustParse(qs))
		if _, ok := s.countedTotal(q); ok {
			t.Errorf("%s answered from the counts", qs)
		}
	}
}
