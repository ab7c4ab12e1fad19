package capability

import (
	"slices"
	"time"
)

// Standing is what an Assessment says of one agent of its subject, as a
// ranking or a fleet's console reads it where the Assessment itself is
// not at hand: decided by Assess, never anywhere else.
type Standing struct {
	// Kill is the Assessment's kill time, and By what recorded it (the
	// case's journal, or the harness's ledger on the fleet).
	Kill time.Time `json:"kill"`
	By   string    `json:"by,omitempty"`
	// Contained and ContainedAt are the Assessment's; Holds says one of
	// the agent's capabilities is not stopped (Assessment.Holds).
	Contained   bool      `json:"contained"`
	ContainedAt time.Time `json:"contained_at,omitzero"`
	Holds       bool      `json:"holds"`
	// Headline is the Assessment's one line.
	Headline string `json:"headline"`
}

// Standing is agent's Standing in the Assessment; false when the agent is
// not of its subject or no kill time is recorded (nothing is judged).
func (a Assessment) Standing(agent, by string) (Standing, bool) {
	if a.Kill.IsZero() || !slices.Contains(a.Subject, agent) {
		return Standing{}, false
	}
	return Standing{Kill: a.Kill, By: by, Contained: a.Contained, ContainedAt: a.ContainedAt, Holds: a.Holds(agent), Headline: a.Headline()}, true
}

// Equal reports whether s and o say the same: their times compared as
// instants, not as the zone they were read in.
func (s Standing) Equal(o Standing) bool {
	return s.Kill.Equal(o.Kill) && s.ContainedAt.Equal(o.ContainedAt) && s.By == o.By &&
		s.Contained == o.Contained && s.Holds == o.Holds && s.Headline == o.Headline
}
