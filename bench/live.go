package bench

import (
	"context"
	"math/rand"
	"sort"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// watcher follows an ingest from outside, as a console open on it would:
// when the first event becomes searchable and, when live, how long the
// console's queries take meanwhile.
type watcher struct {
	cancel context.CancelFunc
	done   chan struct{}
	first  time.Duration
	took   map[string][]time.Duration
	hits   map[string][]int64
	order  []string
	target map[string]float64
}

// liveProbes are the queries a console runs while it follows an ingest.
var liveProbes = map[string]bool{"term agent": true, "bare word": true, "timeline page": true}

func watch(ctx context.Context, st evidence.Reader, began time.Time, live bool) *watcher {
	ctx, cancel := context.WithCancel(ctx)
	w := &watcher{cancel: cancel, done: make(chan struct{}), took: map[string][]time.Duration{}, hits: map[string][]int64{}, target: map[string]float64{}}
	go func() {
		defer close(w.done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for st.Counts().Total == 0 {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
		w.first = time.Since(began)
		if !live {
			return
		}
		rnd := rand.New(rand.NewSource(seed))
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for _, p := range probes(st, rnd) {
				if !liveProbes[p.name] {
					continue
				}
				s := time.Now()
				n, err := p.run(ctx, i)
				if err != nil {
					continue // the ingest's end cancels the last round
				}
				if _, ok := w.took[p.name]; !ok {
					w.order = append(w.order, p.name)
					w.target[p.name] = p.target
				}
				w.took[p.name] = append(w.took[p.name], time.Since(s))
				w.hits[p.name] = append(w.hits[p.name], n)
			}
		}
	}()
	return w
}

// stop ends the watch and returns when the first event was searchable
// (seconds after the start) and the live queries' latencies.
func (w *watcher) stop() (float64, []QueryStats) {
	w.cancel()
	<-w.done
	var out []QueryStats
	for _, name := range w.order {
		d, h := w.took[name], w.hits[name]
		sort.Slice(d, func(a, b int) bool { return d[a] < d[b] })
		sort.Slice(h, func(a, b int) bool { return h[a] < h[b] })
		out = append(out, QueryStats{Name: name, Example: "while the ingest runs, once a second",
			TargetMs: w.target[name], MedianMs: ms(quantile(d, 0.5)), P95Ms: ms(quantile(d, 0.95)), Hits: h[len(h)/2]})
	}
	return w.first.Seconds(), out
}
