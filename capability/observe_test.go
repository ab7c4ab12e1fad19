package capability

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// coverageByMaps is Coverage as it was first written, a map per part
// keyed by observer: what Observe must still give, part for part.
type coverageByMaps struct {
	last    map[string]time.Time
	minutes map[string][]int64
	gaps    map[string][]Gap
	silence map[string]time.Duration
}

func (c *coverageByMaps) observe(ev *evidence.Event) {
	for _, k := range []string{"source:" + ev.Source, "format:" + ev.Format} {
		prev, seen := c.last[k]
		if max := c.silence[k]; max > 0 && seen && ev.Time.Sub(prev) > max {
			c.gaps[k] = append(c.gaps[k], Gap{From: prev, To: ev.Time, Why: "silent for " + ev.Time.Sub(prev).Round(time.Second).String() + ", longer than its stated maximum " + max.String()})
		}
		if ev.Kind == evidence.KindSensorGap && k[0] == 's' {
			from := prev
			if !seen {
				from = ev.Time
			}
			c.gaps[k] = append(c.gaps[k], Gap{From: from, To: ev.Time, Why: ev.Format + " reported lost events (" + ev.ID + ")", ID: ev.ID})
		}
		if ev.Time.After(prev) {
			c.last[k] = ev.Time
		}
		if m, ms := minuteOf(ev.Time), c.minutes[k]; len(ms) == 0 || ms[len(ms)-1] < m {
			c.minutes[k] = append(ms, m)
		}
	}
}

// Random events of every source and format, some out of order, some at
// the zero time, some a sensor's gap, some after a silence longer than an
// observer allows, with a coverage read back from its state on the way,
// or copied while the one copied goes on observing other events: each
// observer's watermark, minutes and gaps are what the maps give.
func TestCoverageIsTheMapsItWas(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 34))
	sources := []struct{ source, format string }{
		{evidence.SourceProxy, "squid"}, {evidence.SourceProxy, "envoy"}, {evidence.SourceSensor, "falco"},
		{evidence.SourceSensor, "tetragon"}, {evidence.SourceLedger, "ledger"}, {evidence.SourceAudit, "cloudtrail"},
	}
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	obs := AllObservers()
	obs[0].MaxSilence, obs[2].MaxSilence = time.Hour, 90*time.Minute // the proxy's, the ledger's
	silent, lost := 0, 0
	for round := range 50 {
		cov := NewCoverage(obs...)
		ref := &coverageByMaps{last: map[string]time.Time{}, minutes: map[string][]int64{}, gaps: map[string][]Gap{}, silence: map[string]time.Duration{}}
		for _, o := range obs {
			if o.MaxSilence > 0 {
				ref.silence[o.key()] = o.MaxSilence
			}
		}
		at := t0
		var apart *Coverage
		for i := range 400 {
			s := sources[rng.IntN(len(sources))]
			ev := &evidence.Event{ID: "e" + string(rune('a'+i%26)), Source: s.source, Format: s.format}
			switch r := rng.IntN(20); {
			case r == 0:
				at = at.Add(time.Duration(rng.IntN(3)) * time.Hour) // past a stated silence
			case r == 1:
				ev.Kind = evidence.KindSensorGap
			case r == 3:
				at = at.Add(-time.Duration(rng.IntN(300)) * time.Second) // late
			default:
				at = at.Add(time.Duration(rng.IntN(90)) * time.Second)
			}
			if ev.Time = at; rng.IntN(40) == 0 {
				ev.Time = time.Time{} // no time: never a watermark
			}
			cov.Observe(ev)
			ref.observe(ev)
			if apart != nil {
				// what the coverage it was copied from observes after is not the copy's
				apart.Observe(&evidence.Event{ID: "x", Time: at.Add(time.Duration(i) * time.Minute), Source: s.source, Format: s.format, Kind: evidence.KindSensorGap})
			}
			switch {
			case i == 200 && round%2 == 0:
				cov = FromState(cov.State()) // kept with the case, read back, observing on
			case i == 200:
				apart, cov = cov, cov.Clone() // a view's copy, observing on
			}
		}
		st := cov.State()
		if !reflect.DeepEqual(st.Last, ref.last) || !reflect.DeepEqual(st.Minutes, ref.minutes) ||
			!reflect.DeepEqual(st.Gaps, ref.gaps) || !reflect.DeepEqual(st.Silence, ref.silence) {
			t.Fatalf("round %d:\n got %+v\nwant %+v", round, st, ref)
		}
		for _, o := range obs {
			if got, want := cov.Watermark(o), ref.last[o.key()]; !got.Equal(want) {
				t.Fatalf("round %d: %s's watermark %v, want %v", round, o.key(), got, want)
			}
		}
		for _, gs := range ref.gaps {
			for _, g := range gs {
				if g.ID != "" {
					lost++
				} else {
					silent++
				}
			}
		}
	}
	if silent == 0 || lost == 0 {
		t.Fatalf("%d silences and %d sensor gaps in all the rounds: the test must read both", silent, lost)
	}
}
