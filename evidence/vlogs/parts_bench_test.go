package vlogs

import (
	"context"
	"math/rand"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// BenchmarkConjunctionParts takes apart a search of one agent's denied
// events in an hour window, the bench's "agent+decision+1h", over 20
// hours and agents drawn at random: the search as it is (its histogram,
// then the page from the buckets that hold it), each of those two
// requests alone, the page's sort keys alone (no event column), and two
// ways of asking the total and the page at once. Same case and variables
// as BenchmarkQueries; docs/performance.md has the figures.
func BenchmarkConjunctionParts(b *testing.B) {
	addr, caseID := os.Getenv("CORDON_VLOGS_BENCH"), os.Getenv("CORDON_VLOGS_BENCH_CASE")
	if addr == "" || caseID == "" {
		b.Skip("set CORDON_VLOGS_BENCH=victorialogs://host:port and CORDON_VLOGS_BENCH_CASE to a case's name")
	}
	ctx := context.Background()
	s, err := Open(ctx, Options{Addr: addr, Case: caseID, Dir: b.TempDir(), ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	c := s.Counts()
	agents := c.Top("agent", 1000)
	if len(agents) == 0 {
		b.Fatalf("case %s holds no agents", caseID)
	}
	// a read: the filter, its histogram's step, and the window of its
	// first page, found before the clock runs
	type read struct {
		r        evidence.Request
		w        string
		step     time.Duration
		bs       []bucket
		from, to time.Time
	}
	reads := make([]read, 20)
	rnd := rand.New(rand.NewSource(20260721))
	for i := range reads {
		from := c.First.Add(time.Duration(rnd.Int63n(int64(c.Last.Sub(c.First)) + 1)))
		q := evidence.And(evidence.Term("agent", agents[i%len(agents)].Value), evidence.Term("decision", evidence.DecisionDeny))
		rd := read{r: evidence.Request{Query: q, Since: from, Until: from.Add(time.Hour), Limit: 100}}
		parts, err := s.wheres(q, rd.r.Since, rd.r.Until)
		if err != nil {
			b.Fatal(err)
		}
		rd.w, rd.step = parts[0], s.step(rd.r.Since, rd.r.Until)
		if rd.bs, err = s.histogram(ctx, rd.w, rd.step); err != nil {
			b.Fatal(err)
		}
		rd.from, rd.to, _ = window(rd.bs, rd.step, 0, 100, false)
		reads[i] = rd
	}
	keys := func(ctx context.Context, q string) error {
		return s.c.query(ctx, q+" | fields "+fieldSort, func(map[string]string) error { return nil })
	}
	for _, v := range []struct {
		name string
		run  func(rd read) error
	}{
		{"search", func(rd read) error { _, err := s.Search(ctx, rd.r); return err }},
		{"histogram", func(rd read) error { _, err := s.histogram(ctx, rd.w, rd.step); return err }},
		{"page", func(rd read) error { _, err := s.sorted(ctx, rd.w, rd.bs, rd.step, 0, 100, false); return err }},
		{"page-keys", func(rd read) error {
			return keys(ctx, rd.w+" "+timeFilter(rd.from, rd.to)+" | sort by ("+fieldSort+") limit 100")
		}},
		{"histogram-with-page", func(rd read) error { // the window known: the best two requests at once can do
			var wg sync.WaitGroup
			var herr error
			wg.Add(1)
			go func() { defer wg.Done(); _, herr = s.histogram(ctx, rd.w, rd.step) }()
			_, err := s.sorted(ctx, rd.w, rd.bs, rd.step, 0, 100, false)
			wg.Wait()
			if err == nil {
				err = herr
			}
			return err
		}},
		{"count-with-whole-page", func(rd read) error { // no window: the hour sorted
			_, _, err := s.countAndSort(ctx, rd.w, "", 0, 100, false)
			return err
		}},
	} {
		b.Run(v.name, func(b *testing.B) {
			took := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				t := time.Now()
				if err := v.run(reads[i%len(reads)]); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t))
			}
			// the median, as the bench reports it: a shared machine's
			// bursts make the mean say little
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
		})
	}
}
