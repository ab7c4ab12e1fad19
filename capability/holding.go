package capability

import "maps"

// Holding is what the ranking of agents reads of one agent's capability
// set: how many capabilities it acquired of each kind, whether one of
// them has no authoritative end recorded, and what its acquired data-out
// destinations received. A watcher publishes it per agent, so that a
// console that holds no capability set (the fleet's) ranks agents as the
// incident's console does.
type Holding struct {
	Acquired map[Kind]int `json:"acquired,omitempty"`
	// Unended says an acquired capability has no authoritative end
	// recorded (Unended): the agent may hold it still.
	Unended  bool  `json:"unended"`
	BytesOut int64 `json:"bytes_out,omitempty"`
}

// Holding sums up agent's capability set; the zero Holding for an agent
// with none acquired.
func (s *Set) Holding(agent string) Holding {
	if s != nil && s.lazy != nil {
		return s.lazy.holdings[agent]
	}
	var h Holding
	for c := range s.All(agent) {
		if c.Origin != Acquired {
			continue
		}
		if h.Acquired == nil {
			h.Acquired = map[Kind]int{}
		}
		h.Acquired[c.Kind]++
		if Unended(c) {
			h.Unended = true
		}
		if c.Kind == DataOut {
			h.BytesOut += c.BytesOut
		}
	}
	return h
}

// Holdings is every agent's Holding, for the agents that acquired a
// capability.
func (s *Set) Holdings() map[string]Holding {
	out := map[string]Holding{}
	for _, a := range s.Agents() {
		if h := s.Holding(a); len(h.Acquired) > 0 {
			out[a] = h
		}
	}
	return out
}

// Equal reports whether h and o say the same.
func (h Holding) Equal(o Holding) bool {
	return h.Unended == o.Unended && h.BytesOut == o.BytesOut && maps.Equal(h.Acquired, o.Acquired)
}
