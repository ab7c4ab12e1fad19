package capability

import (
	"sort"
	"time"
)

// Minute counts a capability's uses in one minute, so that a capability
// used a million times keeps a bounded record that any later kill time can
// still be judged on: the first and last use of the minute are kept by id.
type Minute struct {
	// At is the minute, as Unix seconds divided by 60.
	At int64 `json:"at"`
	// N counts its uses, Refused those of them refused.
	N       int `json:"n"`
	Refused int `json:"refused,omitempty"`
	// FirstID and LastID are its first and last uses.
	FirstID string `json:"first_id"`
	LastID  string `json:"last_id"`
}

// keepUses is how many uses a capability keeps before Compact thins them
// to each minute's first and last (refused and not) and longest.
const keepUses = 64

// Compact counts the uses per minute and, past keepUses, keeps of each
// minute only the first and last use of each answer (refused or not) and
// the longest: enough to name the last use after any kill time and a use
// in flight across it. Uses must be settled (Settle) and in time order.
func (c *Capability) Compact() {
	var dropped []Minute
	if c.mk != nil && c.mk.thinned != nil {
		dropped = c.mk.thinned.dropped
	}
	c.mk = nil
	if len(c.Uses) <= keepUses && dropped == nil {
		c.Minutes = nil
		return
	}
	var mins []Minute
	keep := make([]bool, len(c.Uses))
	type pick struct{ first, last int }
	var cur [2]pick // by refused
	longest := -1
	flush := func() {
		for _, p := range cur {
			if p.first >= 0 {
				keep[p.first], keep[p.last] = true, true
			}
		}
		if longest >= 0 {
			keep[longest] = true
		}
		cur, longest = [2]pick{{-1, -1}, {-1, -1}}, -1
	}
	cur = [2]pick{{-1, -1}, {-1, -1}}
	for i, u := range c.Uses {
		m := minuteOf(u.Time)
		if len(mins) == 0 || mins[len(mins)-1].At != m {
			flush()
			mins = append(mins, Minute{At: m, FirstID: u.ID})
		}
		mm := &mins[len(mins)-1]
		mm.N++
		mm.LastID = u.ID
		r := 0
		if u.Refused {
			mm.Refused++
			r = 1
		}
		if cur[r].first < 0 {
			cur[r].first = i
		}
		cur[r].last = i
		if u.Dur > 0 && (longest < 0 || u.Dur > c.Uses[longest].Dur) {
			longest = i
		}
	}
	flush()
	// a list of its own, at its size: what is dropped is let go
	n := 0
	for _, k := range keep {
		if k {
			n++
		}
	}
	kept := make([]Use, 0, n)
	for i, u := range c.Uses {
		if keep[i] {
			kept = append(kept, u)
		}
	}
	c.Uses = kept
	c.Minutes = addMinutes(mins, dropped)
}

// countAfter counts the uses not refused that began after t; exact says
// the count is exact (false: the minute t falls in was thinned, and the
// count is at least what it says).
func (c *Capability) countAfter(t time.Time) (n int, exact bool) {
	if len(c.Minutes) == 0 {
		for _, u := range c.Uses {
			if !u.Refused && u.Began().After(t) {
				n++
			}
		}
		return n, true
	}
	m := minuteOf(t)
	i := sort.Search(len(c.Minutes), func(i int) bool { return c.Minutes[i].At > m })
	for _, x := range c.Minutes[i:] {
		n += x.N - x.Refused
	}
	for _, u := range c.Uses {
		if !u.Refused && minuteOf(u.Time) == m && u.Began().After(t) {
			n++
		}
	}
	return n, false
}

func minuteOf(t time.Time) int64 { return minuteOfUnix(t.Unix()) }

// minuteOfUnix is the minute of a time in Unix seconds.
func minuteOfUnix(s int64) int64 {
	if s < 0 && s%60 != 0 {
		return s/60 - 1
	}
	return s / 60
}
