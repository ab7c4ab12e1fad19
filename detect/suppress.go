package detect

import "slices"

// Scope is what a suppression covers: the findings of one detector,
// narrowed to an agent, a value, or the events a query matches. A
// suppression is a responder's judgement on the record; it never removes a
// finding, and nothing that decides containment reads it.
type Scope struct {
	Detector string `json:"detector" yaml:"detector"`
	// Agent, when set, narrows it to findings about that agent.
	Agent string `json:"agent,omitempty" yaml:"agent"`
	// Value, when set, narrows it to findings every value of which is
	// this one (a finding driven by it and by another value is not
	// covered: the other may be what matters).
	Value string `json:"value,omitempty" yaml:"value"`
	// Query, when set, narrows it to findings every event of which the
	// query matches (docs/query.md); CoversBy checks it against the store.
	Query string `json:"query,omitempty" yaml:"query"`
}

// CoversFields reports whether the scope's detector, agent and value
// cover f; its query, if any, is still to be checked against f's events.
func (s Scope) CoversFields(f Finding) bool {
	if s.Detector != f.Detector || (s.Agent != "" && s.Agent != f.Agent) {
		return false
	}
	if s.Value != "" {
		if len(f.Values) == 0 || slices.IndexFunc(f.Values, func(v string) bool { return v != s.Value }) >= 0 {
			return false
		}
	}
	return true
}

// String says what the scope covers: "persistence of agent-21".
func (s Scope) String() string {
	out := s.Detector
	if s.Agent != "" {
		out += " of " + s.Agent
	}
	if s.Value != "" {
		out += " driven by " + s.Value
	}
	if s.Query != "" {
		out += " where " + s.Query
	}
	return out
}
