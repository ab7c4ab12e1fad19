package evidence

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// TagBindingConflict marks an event a binding conflict left between two
// agents; each is named by a "candidate:" tag.
const TagBindingConflict = "binding-conflict"

// AgentCounts is what the agents' summary needs of one agent beyond its
// count, kept at ingest with the counts so that opening a case does not
// ask the store for every agent's first and last event.
type AgentCounts struct {
	// N counts the events whose agent it is.
	N int64 `json:"n,omitempty"`
	// First and Last bound its events' times, and AtFirst and AtLast count
	// its events at exactly First and at exactly Last. A bound whose count
	// is 0 is not known: the events at it were replaced, and the agent's
	// first (last) event is now later (earlier) than First (Last), by how
	// much only the store can say.
	First   time.Time `json:"first"`
	Last    time.Time `json:"last"`
	AtFirst int64     `json:"at_first,omitempty"`
	AtLast  int64     `json:"at_last,omitempty"`
	// Denied counts its events with decision deny.
	Denied int64 `json:"denied,omitempty"`
	// Contested counts the events a binding conflict left between it and
	// another agent (tagged TagBindingConflict and "candidate:" it).
	Contested int64 `json:"contested,omitempty"`
}

// Span is the agent's first and last event time, when both are known.
func (a AgentCounts) Span() (ValueSpan, bool) {
	return ValueSpan{First: a.First, Last: a.Last}, a.N > 0 && a.AtFirst > 0 && a.AtLast > 0
}

// addTime counts one more event at t in the bounds.
func (a *AgentCounts) addTime(t time.Time) {
	switch {
	case a.N == 0 || t.Before(a.First):
		a.First, a.AtFirst = t, 1
	case t.Equal(a.First):
		a.AtFirst++
	}
	switch {
	case a.N == 0 || t.After(a.Last):
		a.Last, a.AtLast = t, 1
	case t.Equal(a.Last):
		a.AtLast++
	}
	a.N++
}

// removeTime counts one event at t less: a bound it was at is no longer
// known once no other event is at it.
func (a *AgentCounts) removeTime(t time.Time) {
	a.N--
	if t.Equal(a.First) && a.AtFirst > 0 {
		a.AtFirst--
	}
	if t.Equal(a.Last) && a.AtLast > 0 {
		a.AtLast--
	}
}

// merge adds what d counted (events d saw after or beside a's).
func (a *AgentCounts) merge(d AgentCounts) {
	if d.N > 0 {
		switch {
		case a.N == 0 || d.First.Before(a.First):
			a.First, a.AtFirst = d.First, d.AtFirst
		case d.First.Equal(a.First):
			a.AtFirst += d.AtFirst
		}
		switch {
		case a.N == 0 || d.Last.After(a.Last):
			a.Last, a.AtLast = d.Last, d.AtLast
		case d.Last.Equal(a.Last):
			a.AtLast += d.AtLast
		}
		a.N += d.N
	}
	a.Denied += d.Denied
	a.Contested += d.Contested
}

// agent is name's AgentCounts, made when there is none.
func (c *Counts) agent(name string) *AgentCounts {
	a := c.Agents[name]
	if a == nil {
		if c.Agents == nil {
			c.Agents = map[string]*AgentCounts{}
		}
		a = &AgentCounts{}
		c.Agents[name] = a
	}
	return a
}

// countAgent counts ev in c.Agents (by n: 1 to add it, -1 to remove it).
func (c *Counts) countAgent(ev *Event, n int64) {
	a := c.agent(ev.Agent)
	if n > 0 {
		a.addTime(ev.Time)
	} else {
		a.removeTime(ev.Time)
	}
	if ev.Decision == DecisionDeny {
		a.Denied += n
	}
	c.drop(ev.Agent)
	if !slices.Contains(ev.Tags, TagBindingConflict) {
		return
	}
	for i, t := range ev.Tags {
		name, ok := strings.CutPrefix(t, "candidate:")
		if ok && !slices.Contains(ev.Tags[:i], t) { // an event once per value, as a facet counts it
			c.agent(name).Contested += n
			c.drop(name)
		}
	}
}

// drop forgets an agent nothing is counted of any more.
func (c *Counts) drop(name string) {
	if a := c.Agents[name]; a != nil && a.N <= 0 && a.Denied <= 0 && a.Contested <= 0 {
		delete(c.Agents, name)
	}
}

// AgentAnswers is what a store answers of its agents when its counts do
// not keep them (AskAgents): their spans (a Spanner's), denials per agent
// and the contested events' tags.
type AgentAnswers struct {
	Spans             map[string]ValueSpan
	Denied, Contested []Count
}

// AskAgents asks st what AgentCounts keep, the three questions at once;
// each facet gives at most size values (at least twice the agents, and
// two more). The spans are asked only of a Spanner.
func AskAgents(ctx context.Context, st Reader, size int) (AgentAnswers, error) {
	var a AgentAnswers
	asks := []func() error{
		func() (err error) {
			a.Denied, err = st.Facet(ctx, Term("decision", DecisionDeny), time.Time{}, time.Time{}, "agent", size)
			return err
		},
		func() (err error) {
			a.Contested, err = st.Facet(ctx, Term("tags", TagBindingConflict), time.Time{}, time.Time{}, "tags", size)
			return err
		},
	}
	if sp, ok := st.(Spanner); ok {
		asks = append(asks, func() (err error) { a.Spans, err = sp.Spans(ctx, "agent"); return err })
	}
	errs := make([]error, len(asks))
	var wg sync.WaitGroup
	for i, ask := range asks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = ask()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return AgentAnswers{}, fmt.Errorf("agents' denials, conflicts and spans: %w", err)
	}
	return a, nil
}

// Counts makes counts' Agents from the answers and each agent's count n.
// How many events are at an agent's first and last time was not asked:
// one each, at least, is what is known, so that a replacement of one of
// them makes the bound unknown rather than wrong. An agent with no span
// has its bounds unknown.
func (a AgentAnswers) Counts(n map[string]int64) map[string]*AgentCounts {
	c := Counts{Agents: map[string]*AgentCounts{}}
	for name, k := range n {
		ac := c.agent(name)
		ac.N = k
		if sp, ok := a.Spans[name]; ok && k > 0 {
			ac.First, ac.Last, ac.AtFirst, ac.AtLast = sp.First, sp.Last, 1, 1
		}
	}
	for _, d := range a.Denied {
		c.agent(d.Value).Denied = d.Count
	}
	for _, d := range a.Contested {
		if name, ok := strings.CutPrefix(d.Value, "candidate:"); ok {
			c.agent(name).Contested = d.Count
		}
	}
	return c.Agents
}
