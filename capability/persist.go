package capability

import (
	"encoding/json"
	"time"
)

// The capability sets and the coverage are kept with the case (the
// detectors' result, incident's engine/ folder): they marshal to what
// they hold, and read back to the same.

type setJSON struct {
	Agents map[string][]*Capability `json:"agents"`
}

// MarshalJSON writes every agent's capabilities.
func (s *Set) MarshalJSON() ([]byte, error) {
	if s == nil {
		return []byte("null"), nil
	}
	return json.Marshal(setJSON{Agents: s.byAgent})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *Set) UnmarshalJSON(b []byte) error {
	var j setJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if j.Agents == nil {
		j.Agents = map[string][]*Capability{}
	}
	s.byAgent = j.Agents
	return nil
}

type coverageJSON struct {
	Last    map[string]time.Time     `json:"last"`
	Minutes map[string][]int64       `json:"minutes"`
	Gaps    map[string][]Gap         `json:"gaps"`
	Silence map[string]time.Duration `json:"silence"`
}

// MarshalJSON writes each source's watermark, minutes and gaps.
func (c *Coverage) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("null"), nil
	}
	return json.Marshal(coverageJSON{Last: c.last, Minutes: c.minutes, Gaps: c.gaps, Silence: c.silence})
}

// UnmarshalJSON reads what MarshalJSON wrote; the coverage can go on
// observing after it.
func (c *Coverage) UnmarshalJSON(b []byte) error {
	var j coverageJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = *NewCoverage()
	for k, v := range j.Last {
		c.last[k] = v
	}
	for k, v := range j.Minutes {
		c.minutes[k] = v
	}
	for k, v := range j.Gaps {
		c.gaps[k] = v
	}
	for k, v := range j.Silence {
		c.silence[k] = v
	}
	return nil
}

// ByAgent is the sets as a map, for a caller that keeps them in its own
// form (the kept result's gob); NewSet reads them back.
func (s *Set) ByAgent() map[string][]*Capability {
	if s == nil {
		return nil
	}
	return s.byAgent
}

// CoverageState is what a Coverage holds, exported for a caller that keeps
// it in its own form; Coverage.State and FromState convert.
type CoverageState coverageJSON

// State is the coverage's content.
func (c *Coverage) State() CoverageState {
	return CoverageState{Last: c.last, Minutes: c.minutes, Gaps: c.gaps, Silence: c.silence}
}

// FromState is a coverage holding st, which can go on observing.
func FromState(st CoverageState) *Coverage {
	c := NewCoverage()
	for k, v := range st.Last {
		c.last[k] = v
	}
	for k, v := range st.Minutes {
		c.minutes[k] = v
	}
	for k, v := range st.Gaps {
		c.gaps[k] = v
	}
	for k, v := range st.Silence {
		c.silence[k] = v
	}
	return c
}
