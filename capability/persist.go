package capability

import "time"

// The capability sets and the coverage are kept with the case (the
// detectors' result, incident's engine/ folder) as plain data: the sets as
// a map (ByAgent, read back by NewSet), the coverage as its state (State,
// read back by FromState).

// ByAgent is the sets as a map, for a caller that keeps them in its own
// form (the kept result's gob); NewSet reads them back.
func (s *Set) ByAgent() map[string][]*Capability {
	if s == nil {
		return nil
	}
	return s.sets()
}

// CoverageState is what a Coverage holds: each source's watermark, the
// minutes it reported in, its gaps, and its stated maximum silence.
type CoverageState struct {
	Last    map[string]time.Time
	Minutes map[string][]int64
	Gaps    map[string][]Gap
	Silence map[string]time.Duration
}

// State is the coverage's content.
func (c *Coverage) State() CoverageState {
	st := CoverageState{Last: map[string]time.Time{}, Minutes: map[string][]int64{}, Gaps: map[string][]Gap{}, Silence: map[string]time.Duration{}}
	for k, o := range c.by {
		if !o.last.IsZero() {
			st.Last[k] = o.last
		}
		if o.minutes != nil {
			st.Minutes[k] = o.minutes
		}
		if o.gaps != nil {
			st.Gaps[k] = o.gaps
		}
		if o.silence != 0 {
			st.Silence[k] = o.silence
		}
	}
	return st
}

// FromState is a coverage holding st, which can go on observing.
func FromState(st CoverageState) *Coverage {
	c := NewCoverage()
	for k, v := range st.Last {
		c.of(k).last = v
	}
	for k, v := range st.Minutes {
		c.of(k).minutes = v
	}
	for k, v := range st.Gaps {
		c.of(k).gaps = v
	}
	for k, v := range st.Silence {
		c.of(k).silence = v
	}
	return c
}
