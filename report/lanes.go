package report

import (
	"context"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"slices"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

// Lanes is the timeline picture's data: the main span cut into buckets,
// one lane per agent involved, and the vertical rules (containment, each
// layer's verification).
type Lanes struct {
	First   time.Time `json:"first"`
	Last    time.Time `json:"last"`
	Buckets int       `json:"buckets"`
	Lanes   []Lane    `json:"lanes"`
	Rules   []Rule    `json:"rules"`
}

// Lane is one agent's row: events and denials per bucket, its findings,
// sessions and data out.
type Lane struct {
	Agent    string      `json:"agent"`
	Events   []int64     `json:"events"`
	Denials  []int64     `json:"denials"`
	Findings []LaneMark  `json:"findings"`
	Sessions []LaneSpan  `json:"sessions"`
	DataOut  []LaneBytes `json:"data_out"`
}

// LaneMark is a finding on a lane.
type LaneMark struct {
	Time     time.Time `json:"time"`
	Severity string    `json:"severity"`
	Finding  string    `json:"finding"`
}

// LaneSpan is a session on a lane (End zero: no end recorded).
type LaneSpan struct {
	Session string    `json:"session"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end,omitzero"`
}

// LaneBytes is data sent to one destination over its span.
type LaneBytes struct {
	Destination string    `json:"destination"`
	Bytes       int64     `json:"bytes"`
	First       time.Time `json:"first"`
	Last        time.Time `json:"last"`
}

// Rule is a vertical rule across the lanes.
type Rule struct {
	Time  time.Time `json:"time"`
	Label string    `json:"label"`
}

// Bounds of the timeline: buckets across the span, lanes drawn.
const (
	laneBuckets = 48
	maxLanes    = 6
)

// involved are the agents the report is about: the subject, the agents
// whose credentials it took, the agents of findings; at most maxLanes.
func involved(r Report) []string {
	var out []string
	add := func(a string) {
		if a != "" && !slices.Contains(out, a) && len(out) < maxLanes {
			out = append(out, a)
		}
	}
	for _, a := range r.Summary.Subject {
		add(a)
	}
	for _, v := range r.Impact.Victims {
		add(v.Agent)
	}
	for _, f := range r.Findings {
		add(f.Agent)
	}
	return out
}

// lanes counts each involved agent's events and denials per bucket: one
// facet by agent per bucket, so the cost follows the buckets, not the
// events.
func lanes(ctx context.Context, st Reader, r Report, cs incident.Case) (Lanes, error) {
	s := r.Summary
	ls := Lanes{First: s.First, Last: s.Last, Buckets: laneBuckets, Lanes: []Lane{}, Rules: []Rule{}}
	agents := involved(r)
	if s.First.IsZero() || len(agents) == 0 {
		return ls, nil
	}
	b := evidence.Buckets{First: s.First, Last: s.Last, N: laneBuckets}
	at := map[string]int{}
	for i, a := range agents {
		at[a] = i
		ls.Lanes = append(ls.Lanes, Lane{Agent: a, Events: make([]int64, laneBuckets), Denials: make([]int64, laneBuckets),
			Findings: []LaneMark{}, Sessions: []LaneSpan{}, DataOut: []LaneBytes{}})
	}
	denials := st.Counts().Fields["decision"][evidence.DecisionDeny] > 0
	for i := range laneBuckets {
		since, until := b.Start(i), b.Start(i+1)
		if i == laneBuckets-1 {
			until = s.Last.Add(time.Nanosecond)
		}
		counts, err := st.Facet(ctx, evidence.All(), since, until, "agent", 1000)
		if err != nil {
			return ls, fmt.Errorf("events over time: %w", err)
		}
		for _, c := range counts {
			if j, ok := at[c.Value]; ok {
				ls.Lanes[j].Events[i] = c.Count
			}
		}
		if !denials {
			continue
		}
		counts, err = st.Facet(ctx, evidence.Term("decision", evidence.DecisionDeny), since, until, "agent", 1000)
		if err != nil {
			return ls, fmt.Errorf("denials over time: %w", err)
		}
		for _, c := range counts {
			if j, ok := at[c.Value]; ok {
				ls.Lanes[j].Denials[i] = c.Count
			}
		}
	}
	for _, f := range r.Findings {
		if j, ok := at[f.Agent]; ok {
			ls.Lanes[j].Findings = append(ls.Lanes[j].Findings, LaneMark{Time: f.Start, Severity: f.Severity, Finding: f.ID})
		}
	}
	for _, row := range r.Attribution.Sessions {
		if j, ok := at[row.Agent]; ok {
			ls.Lanes[j].Sessions = append(ls.Lanes[j].Sessions, LaneSpan{Session: row.Session, Start: row.Start, End: row.End})
		}
	}
	for _, c := range cs.Capabilities {
		if j, ok := at[c.Agent]; ok && c.Kind == capability.DataOut && c.BytesOut > 0 {
			ls.Lanes[j].DataOut = append(ls.Lanes[j].DataOut, LaneBytes{Destination: c.Value, Bytes: c.BytesOut, First: c.First().UTC(), Last: c.Last().UTC()})
		}
	}
	if !cs.ContainedAt.IsZero() {
		ls.Rules = append(ls.Rules, Rule{Time: cs.ContainedAt.UTC(), Label: "killed"})
	}
	if a := cs.Assessment; a.Contained && a.ContainedAt.After(a.Kill) {
		ls.Rules = append(ls.Rules, Rule{Time: a.ContainedAt.UTC(), Label: "contained"})
	}
	for _, l := range r.Layers {
		if l.Status == incident.CheckVerified && l.Source == "journal" {
			ls.Rules = append(ls.Rules, Rule{Time: l.At, Label: l.Title + " verified"})
		}
	}
	return ls, nil
}
