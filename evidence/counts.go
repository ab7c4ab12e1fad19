package evidence

import (
	"sort"
	"time"
)

// CountedFields are counted per value at ingest, so whole-incident facets
// never ask the index to count a million hits.
var CountedFields = []string{"source", "format", "kind", "agent", "attributed_via", "decision", "dst_host", "src_ip", "tool", "severity", "container", "user"}

// Counts are whole-incident numbers kept at ingest, atomically with the
// events they count.
type Counts struct {
	Total int64 `json:"total"`
	// First and Last are the earliest and latest event times.
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
	// Fields maps a counted field to its values' counts. An empty value
	// counts events without the field ("" key).
	Fields map[string]map[string]int64 `json:"fields"`
	// Minutes maps a Unix minute to the number of events in it: the
	// timeline's density histogram and the index the pager plans with.
	Minutes map[int64]int64 `json:"minutes"`
	// Cut counts the events with a field cut in the index (Event.Cut).
	Cut int64 `json:"cut,omitempty"`
	// Agents is what the agents' summary needs of each agent, by name
	// (AgentCounts), when AgentsKept: counts begun before they were kept
	// (an index an earlier version wrote) have none, and the summary asks
	// the store.
	Agents     map[string]*AgentCounts `json:"agents,omitempty"`
	AgentsKept bool                    `json:"agents_kept,omitempty"`
}

func (c *Counts) add(ev *Event) {
	if c.Fields == nil {
		c.Fields = map[string]map[string]int64{}
		c.Minutes = map[int64]int64{}
	}
	if c.Total == 0 {
		c.AgentsKept, c.Agents = true, map[string]*AgentCounts{}
	}
	if c.AgentsKept {
		c.countAgent(ev, 1)
	}
	// Total, not a zero First, says "no event yet": a record may be dated
	// 0001-01-01T00:00:00Z, which is the zero time.
	if c.Total == 0 || ev.Time.Before(c.First) {
		c.First = ev.Time
	}
	if c.Total == 0 || ev.Time.After(c.Last) {
		c.Last = ev.Time
	}
	c.Total++
	if len(ev.Cut) > 0 {
		c.Cut++
	}
	c.Minutes[minuteOf(ev.Time)]++
	for _, f := range CountedFields {
		m := c.Fields[f]
		if m == nil {
			m = map[string]int64{}
			c.Fields[f] = m
		}
		m[fieldValue(ev, f)]++
	}
}

// minuteOf is the minute bucket of t, rounded down as the index's time
// buckets are, so that a time before 1970 counts in the minute it is in.
func minuteOf(t time.Time) int64 { return floorDiv(t.Unix(), 60) }

// fieldValue reads one of the CountedFields.
func fieldValue(ev *Event, f string) string {
	switch f {
	case "source":
		return ev.Source
	case "format":
		return ev.Format
	case "kind":
		return ev.Kind
	case "agent":
		return ev.Agent
	case "attributed_via":
		return ev.AttributedVia
	case "decision":
		return ev.Decision
	case "dst_host":
		return ev.DstHost
	case "src_ip":
		return ev.SrcIP
	case "tool":
		return ev.Tool
	case "severity":
		return ev.Severity
	case "container":
		return ev.Container
	case "user":
		return ev.User
	}
	return ""
}

// merge adds the counts d holds.
func (c *Counts) merge(d *Counts) {
	if d.Total == 0 {
		return
	}
	if c.Fields == nil {
		c.Fields = map[string]map[string]int64{}
		c.Minutes = map[int64]int64{}
	}
	if c.Total == 0 {
		c.AgentsKept, c.Agents = d.AgentsKept, nil
	}
	c.AgentsKept = c.AgentsKept && d.AgentsKept
	if !c.AgentsKept {
		c.Agents = nil
	}
	for name, a := range d.Agents {
		if !c.AgentsKept {
			break
		}
		c.agent(name).merge(*a)
	}
	if c.Total == 0 || d.First.Before(c.First) {
		c.First = d.First
	}
	if c.Total == 0 || d.Last.After(c.Last) {
		c.Last = d.Last
	}
	c.Total += d.Total
	c.Cut += d.Cut
	for m, n := range d.Minutes {
		c.Minutes[m] += n
	}
	for f, vs := range d.Fields {
		m := c.Fields[f]
		if m == nil {
			m = make(map[string]int64, len(vs))
			c.Fields[f] = m
		}
		for v, n := range vs {
			m[v] += n
		}
	}
}

func (c Counts) clone() Counts {
	out := c
	out.Fields = make(map[string]map[string]int64, len(c.Fields))
	for f, m := range c.Fields {
		mm := make(map[string]int64, len(m))
		for k, v := range m {
			mm[k] = v
		}
		out.Fields[f] = mm
	}
	out.Minutes = make(map[int64]int64, len(c.Minutes))
	for k, v := range c.Minutes {
		out.Minutes[k] = v
	}
	if c.Agents != nil {
		out.Agents = make(map[string]*AgentCounts, len(c.Agents))
		for k, v := range c.Agents {
			a := *v
			out.Agents[k] = &a
		}
	}
	return out
}

// Top returns the n most frequent non-empty values of a counted field.
func (c Counts) Top(field string, n int) []Count {
	var out []Count
	for v, k := range c.Fields[field] {
		if v != "" {
			out = append(out, Count{Value: v, Count: k})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Value < out[j].Value
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// Between returns how many events fall in the minutes covering [from, to].
// It visits the populated minutes, not every minute of the range: a range
// may run to the year 9999.
func (c Counts) Between(from, to time.Time) int64 {
	var n int64
	lo, hi := minuteOf(from), minuteOf(to)
	for m, k := range c.Minutes {
		if m >= lo && m <= hi {
			n += k
		}
	}
	return n
}

// remove undoes add for an event that is being replaced. The time span is
// left as is: a replacement keeps its event's time.
func (c *Counts) remove(ev *Event) {
	if c.AgentsKept {
		c.countAgent(ev, -1)
	}
	c.Total--
	if len(ev.Cut) > 0 {
		c.Cut--
	}
	if m := minuteOf(ev.Time); c.Minutes[m] > 1 {
		c.Minutes[m]--
	} else {
		delete(c.Minutes, m)
	}
	for _, f := range CountedFields {
		v := fieldValue(ev, f)
		if m := c.Fields[f]; m[v] > 1 {
			m[v]--
		} else if m != nil {
			delete(m, v)
		}
	}
}
