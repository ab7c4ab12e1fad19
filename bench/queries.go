package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// QueryStats are the latencies of one kind of query.
type QueryStats struct {
	Name     string  `json:"name"`
	Example  string  `json:"example"`
	TargetMs float64 `json:"target_ms"`
	MedianMs float64 `json:"median_ms"`
	P95Ms    float64 `json:"p95_ms"`
	Hits     int64   `json:"median_hits"` // matching events (or rows returned)
}

// probe is one kind of query; run does the i-th variant and says how many
// events matched.
type probe struct {
	name    string
	target  float64
	example func(i int) string
	run     func(ctx context.Context, i int) (int64, error)
}

// bareWords are searched with no field: they hit message, command line,
// URL, path and raw text, at very different frequencies.
var bareWords = []string{"nohup", "passwd", "pytest", "beacon", "shadow", "upload"}

func agentName(i int) string { return fmt.Sprintf("agent-%02d", i%nAgents+1) }

func probes(st evidence.Reader, rnd *rand.Rand) []probe {
	c := st.Counts()
	spanNs := c.Last.Sub(c.First).Nanoseconds()
	at := func() time.Time { return c.First.Add(time.Duration(rnd.Int63n(spanNs + 1))) }
	search := func(ctx context.Context, r evidence.Request) (int64, error) {
		r.Limit = 100
		h, err := st.Search(ctx, r)
		if err != nil {
			return 0, err
		}
		return int64(h.Total), nil
	}
	facet := func(field string) func(context.Context, int) (int64, error) {
		return func(ctx context.Context, _ int) (int64, error) {
			c, err := st.Facet(ctx, evidence.All(), time.Time{}, time.Time{}, field, 10)
			return int64(len(c)), err
		}
	}
	term := func(i int) evidence.Query { return evidence.Term("agent", agentName(i)) }
	denied := func(i int) evidence.Query {
		return evidence.And(evidence.Term("agent", agentName(i)), evidence.Term("decision", evidence.DecisionDeny))
	}
	return []probe{
		{"term agent", 5, func(i int) string { return term(i).String() },
			func(ctx context.Context, i int) (int64, error) {
				return search(ctx, evidence.Request{Query: term(i)})
			}},
		{"agent+decision+1h", 5, func(i int) string { return denied(i).String() + ", 1 h window" },
			func(ctx context.Context, i int) (int64, error) {
				from := at()
				return search(ctx, evidence.Request{Query: denied(i), Since: from, Until: from.Add(time.Hour)})
			}},
		{"bare word", 5, func(i int) string { return bareWords[i%len(bareWords)] },
			func(ctx context.Context, i int) (int64, error) {
				return search(ctx, evidence.Request{Query: evidence.Term("", bareWords[i%len(bareWords)])})
			}},
		{"timeline page", 30, func(int) string { return "Page: 100 rows from a random time" },
			func(ctx context.Context, _ int) (int64, error) {
				p, err := st.Page(ctx, evidence.PageRequest{From: at(), Limit: 100})
				if err != nil {
					return 0, err
				}
				return int64(len(p.Events)), nil
			}},
		{"facet agent", 50, func(int) string { return "whole incident, top 10" }, facet("agent")},
		{"facet dst_host", 50, func(int) string { return "whole incident, top 10" }, facet("dst_host")},
	}
}

// timeQueries runs every probe n times, interleaved so that a burst of
// load from elsewhere spreads over all of them, and summarizes.
func timeQueries(ctx context.Context, st evidence.Reader, n int) ([]QueryStats, error) {
	rnd := rand.New(rand.NewSource(seed))
	ps := probes(st, rnd)
	took := make([][]time.Duration, len(ps))
	hits := make([][]int64, len(ps))
	for i := 0; i < n; i++ {
		for j, p := range ps {
			t := time.Now()
			h, err := p.run(ctx, i)
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %w", p.name, p.example(i), err)
			}
			took[j] = append(took[j], time.Since(t))
			hits[j] = append(hits[j], h)
		}
	}
	out := make([]QueryStats, len(ps))
	for j, p := range ps {
		sort.Slice(took[j], func(a, b int) bool { return took[j][a] < took[j][b] })
		sort.Slice(hits[j], func(a, b int) bool { return hits[j][a] < hits[j][b] })
		out[j] = QueryStats{
			Name: p.name, Example: p.example(0), TargetMs: p.target,
			MedianMs: ms(quantile(took[j], 0.5)), P95Ms: ms(quantile(took[j], 0.95)),
			Hits: hits[j][len(hits[j])/2],
		}
	}
	return out, nil
}

// quantile of sorted durations, nearest rank.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(d)))) - 1
	return d[max(0, min(i, len(d)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
