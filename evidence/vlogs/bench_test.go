package vlogs_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/evidence/vlogs"
)

// BenchmarkQueries times the reads the console makes, in process, the
// client's round trips included, on a case already in VictoriaLogs (one a
// `cordon bench --keep --store …` run left): CORDON_VLOGS_BENCH names the
// store and CORDON_VLOGS_BENCH_CASE the case (store.json in the kept
// incident). docs/performance.md has the figures and the commands.
func BenchmarkQueries(b *testing.B) {
	addr, caseID := os.Getenv("CORDON_VLOGS_BENCH"), os.Getenv("CORDON_VLOGS_BENCH_CASE")
	if addr == "" || caseID == "" {
		b.Skip("set CORDON_VLOGS_BENCH=victorialogs://host:port and CORDON_VLOGS_BENCH_CASE to a case's name")
	}
	ctx := context.Background()
	st, err := vlogs.Open(ctx, vlogs.Options{Addr: addr, Case: caseID, Dir: b.TempDir(), ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	c := st.Counts()
	if c.Total == 0 {
		b.Fatalf("case %s holds no events", caseID)
	}
	agent := c.Top("agent", 1)[0].Value
	term := evidence.Term("agent", agent)
	hour := c.First.Add(c.Last.Sub(c.First) / 2)
	for _, r := range []struct {
		name string
		run  func(i int) error
	}{
		{"term", func(int) error { _, err := st.Search(ctx, evidence.Request{Query: term, Limit: 100}); return err }},
		{"conjunction-1h", func(int) error {
			_, err := st.Search(ctx, evidence.Request{Query: evidence.And(term, evidence.Term("decision", "deny")), Since: hour, Until: hour.Add(time.Hour), Limit: 100})
			return err
		}},
		{"page-term", func(i int) error {
			at := c.First.Add(time.Duration(i%97) * c.Last.Sub(c.First) / 97)
			_, err := st.Page(ctx, evidence.PageRequest{Query: term, From: at, Limit: 100})
			return err
		}},
		{"page-all", func(i int) error {
			at := c.First.Add(time.Duration(i%97) * c.Last.Sub(c.First) / 97)
			_, err := st.Page(ctx, evidence.PageRequest{From: at, Limit: 100})
			return err
		}},
		{"facet-dst_host-of-term", func(int) error {
			_, err := st.Facet(ctx, term, time.Time{}, time.Time{}, "dst_host", 10)
			return err
		}},
		{"facet-agent-1h", func(int) error {
			_, err := st.Facet(ctx, evidence.All(), hour, hour.Add(time.Hour), "agent", 10)
			return err
		}},
		{"bare-word", func(int) error {
			_, err := st.Search(ctx, evidence.Request{Query: evidence.Term("", "nohup"), Limit: 100})
			return err
		}},
	} {
		b.Run(r.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := r.run(i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
