package evidence

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

// Buckets splits [first, last] into n equal time buckets.
type Buckets struct {
	First, Last time.Time
	N           int
}

// longSpan is where bucket arithmetic moves from nanoseconds to whole
// seconds: a time.Duration holds 292 years, and a main span can run from
// the year 1 to 9999.
const longSpan = 100 * 365 * 24 * time.Hour

// seconds is the width of a bucket in whole seconds (at least one), for a
// long span; 0 for a span a Duration measures.
func (b Buckets) seconds() int64 {
	if b.N <= 0 || b.Last.Sub(b.First) < longSpan {
		return 0
	}
	return max((b.Last.Unix()-b.First.Unix())/int64(b.N), 1)
}

// Width is the time one bucket covers (at least a nanosecond; at most the
// longest Duration).
func (b Buckets) Width() time.Duration {
	if s := b.seconds(); s > 0 {
		return time.Duration(min(s, int64(math.MaxInt64/time.Second))) * time.Second
	}
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
	var i int64
	if s := b.seconds(); s > 0 {
		i = (t.Unix() - b.First.Unix()) / s
	} else {
		i = int64(t.Sub(b.First) / b.Width())
	}
	return int(min(max(i, 0), int64(b.N-1)))
}

// Start returns the start time of bucket i.
func (b Buckets) Start(i int) time.Time {
	if s := b.seconds(); s > 0 {
		return time.Unix(b.First.Unix()+int64(i)*s, int64(b.First.Nanosecond())).In(b.First.Location())
	}
	return b.First.Add(time.Duration(i) * b.Width())
}

// Density spreads the per-minute counts kept at ingest over n buckets
// across the main span (Counts.MainSpan): the timeline's sparkline. The
// few events outside it are left out, so that one record dated 9999-12-31
// does not squeeze the incident into one bar; the console shows them on a
// line of their own. A minute that spans several buckets (a short incident
// on a wide terminal) is shared between them by overlap, so that the line
// shows density, not a comb of one-minute spikes; a bucket with any share
// counts at least 1.
func Density(c Counts, n int) (Buckets, []int64) {
	sp := c.MainSpan()
	b := Buckets{First: sp.First, Last: sp.Last, N: n}
	out := make([]int64, max(n, 0))
	if n <= 0 || c.Total == 0 {
		return b, out
	}
	acc := make([]float64, n)
	end := sp.Last.Add(time.Nanosecond)
	for minute, k := range c.Minutes {
		from, to := time.Unix(minute*60, 0), time.Unix(minute*60+60, 0)
		if !from.Before(end) || !to.After(sp.First) {
			continue // outside the main span
		}
		if from.Before(sp.First) {
			from = sp.First
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
// Denials outside the buckets' span are not counted.
func DeniedSeries(ctx context.Context, st Reader, b Buckets) ([]int64, error) {
	out := make([]int64, max(b.N, 0))
	if st.Counts().Fields["decision"][DecisionDeny] == 0 {
		return out, nil
	}
	q := Term("decision", DecisionDeny)
	// a few buckets in flight: on a server each facet is a round trip
	// (a hundred buckets of a ten-million-event case on VictoriaLogs took
	// 0.4 s one after another)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		next = make(chan int)
	)
	for range min(deniedInFlight, b.N) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				since, until := b.Start(i), b.Start(i+1)
				if i == b.N-1 {
					until = b.Last.Add(time.Nanosecond)
				}
				counts, err := st.Facet(ctx, q, since, until, "decision", 1)
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					continue
				}
				for _, c := range counts {
					if c.Value == DecisionDeny {
						out[i] = c.Count
					}
				}
			}
		}()
	}
	for i := 0; i < b.N; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(errs) > 0 {
		return nil, fmt.Errorf("denials over time: %w", errs[0])
	}
	return out, nil
}

// deniedInFlight is how many of DeniedSeries's facets run at once.
const deniedInFlight = 4
