package evidence

import (
	"context"
	"fmt"
	"time"
)

// Buckets splits [first, last] into n equal time buckets.
type Buckets struct {
	First, Last time.Time
	N           int
}

// Width is the time one bucket covers (at least a nanosecond).
func (b Buckets) Width() time.Duration {
	if b.N <= 0 {
		return time.Nanosecond
	}
	w := b.Last.Sub(b.First) / time.Duration(b.N)
	if w <= 0 {
		w = time.Nanosecond
	}
	return w
}

// Index returns the bucket t falls in, clamped to [0, N).
func (b Buckets) Index(t time.Time) int {
	if b.N <= 0 {
		return 0
	}
	i := int(t.Sub(b.First) / b.Width())
	return min(max(i, 0), b.N-1)
}

// Start returns the start time of bucket i.
func (b Buckets) Start(i int) time.Time {
	return b.First.Add(time.Duration(i) * b.Width())
}

// Density spreads the per-minute counts kept at ingest over n buckets
// between the first and last event: the timeline's sparkline. A minute that
// spans several buckets (a short incident on a wide terminal) is shared
// between them by overlap, so that the line shows density, not a comb of
// one-minute spikes; a bucket with any share counts at least 1.
func Density(c Counts, n int) (Buckets, []int64) {
	b := Buckets{First: c.First, Last: c.Last, N: n}
	out := make([]int64, max(n, 0))
	if n <= 0 || c.Total == 0 {
		return b, out
	}
	acc := make([]float64, n)
	end := c.Last.Add(time.Nanosecond)
	for minute, k := range c.Minutes {
		from, to := time.Unix(minute*60, 0), time.Unix(minute*60+60, 0)
		if from.Before(c.First) {
			from = c.First
		}
		if to.After(end) {
			to = end
		}
		span := to.Sub(from)
		if span <= 0 {
			acc[b.Index(from)] += float64(k)
			continue
		}
		for i := b.Index(from); i < n; i++ {
			lo, hi := b.Start(i), b.Start(i+1)
			if i == n-1 {
				hi = end
			}
			if !lo.Before(to) {
				break
			}
			overlap := minTime(hi, to).Sub(maxTime(lo, from))
			if overlap > 0 {
				acc[i] += float64(k) * float64(overlap) / float64(span)
			}
		}
	}
	for i, v := range acc {
		if v > 0 {
			out[i] = max(int64(v+0.5), 1)
		}
	}
	return b, out
}

// DeniedSeries counts the denied actions in each bucket: one facet per
// bucket over the index's deny postings, so its cost follows the number of
// denials, not of events. Small enough to run whenever the width changes.
func DeniedSeries(ctx context.Context, st Store, b Buckets) ([]int64, error) {
	out := make([]int64, max(b.N, 0))
	if st.Counts().Fields["decision"][DecisionDeny] == 0 {
		return out, nil
	}
	q := Must("decision", DecisionDeny)
	for i := 0; i < b.N; i++ {
		since, until := b.Start(i), b.Start(i+1)
		if i == b.N-1 {
			until = b.Last.Add(time.Nanosecond)
		}
		if i == 0 {
			since = time.Time{}
		}
		counts, err := st.Facet(ctx, q, since, until, "decision", 1)
		if err != nil {
			return nil, fmt.Errorf("denials over time: %w", err)
		}
		for _, c := range counts {
			if c.Value == DecisionDeny {
				out[i] = c.Count
			}
		}
	}
	return out, nil
}
