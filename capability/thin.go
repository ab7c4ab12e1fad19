package capability

import (
	"slices"
	"sort"
	"time"
)

// Thin is Compact's running form, for a pass that is still adding uses:
// of the uses in minutes before the minute of before, it keeps what
// Compact would keep of them (each minute's first and last use of each
// answer, and the longest) and what finishing reads (where the minute's
// last refusals began; for a place, a use of each credential used from
// it), and counts the others per minute, for Compact to add. The answer
// Compact then gives is the one it gives on every use, provided that no
// use dropped is moved afterwards (a clock skew taken off its source:
// the caller thins only uses whose source's skew is settled and not
// applied) and that no later use falls in a minute thinned (the caller
// gives before no later than what is still to come). An open use (a tool
// call with no result yet) is kept, not counted, and picks nothing: its
// time may still move. It returns how many uses it dropped.
func (c *Capability) Thin(before time.Time) int {
	if !UsesInOrder(c.Uses) {
		// a copy: a view may be reading the uses it shares
		c.Uses = slices.Clone(c.Uses)
		sort.SliceStable(c.Uses, func(i, j int) bool { return c.Uses[i].Time.Before(c.Uses[j].Time) })
	}
	b := minuteOf(before)
	n := sort.Search(len(c.Uses), func(i int) bool { return minuteOf(c.Uses[i].Time) >= b })
	if n == 0 {
		return 0
	}
	keep := make([]bool, n)
	// a place's credentials: each one keeps a use (endPlace reads them)
	var froms map[string]bool
	if c.Kind == Place {
		froms = map[string]bool{}
	}
	for i := 0; i < n; {
		m := minuteOf(c.Uses[i].Time)
		j := i
		for j < n && minuteOf(c.Uses[j].Time) == m {
			j++
		}
		c.pickMinute(i, j, keep)
		i = j
	}
	if froms != nil {
		for i, u := range c.Uses {
			if i >= n || keep[i] {
				froms[u.From] = true
			}
		}
		for i := range n {
			if !keep[i] && !froms[c.Uses[i].From] {
				keep[i], froms[c.Uses[i].From] = true, true
			}
		}
	}
	var gone []Minute
	kept := make([]Use, 0, len(c.Uses)-n+n/8)
	for i, u := range c.Uses[:n] {
		if keep[i] {
			kept = append(kept, u)
			continue
		}
		m := minuteOf(u.Time)
		if len(gone) == 0 || gone[len(gone)-1].At != m {
			gone = append(gone, Minute{At: m})
		}
		gone[len(gone)-1].N++
		if u.Refused {
			gone[len(gone)-1].Refused++
		}
	}
	var was []Minute
	if c.thinned != nil {
		was = c.thinned.dropped
	}
	if len(gone) > 0 {
		c.Uses = append(kept, c.Uses[n:]...)
	}
	// anew, not changed: a copy a view finishes may share it
	c.thinned = &thinned{dropped: addMinutes(was, gone), to: len(c.Uses)}
	dropped := 0
	for _, g := range gone {
		dropped += g.N
	}
	return dropped
}

// thinned is what Thin dropped, counted per minute, and how many uses it
// left.
type thinned struct {
	dropped []Minute
	to      int
}

// pickMinute marks, of the uses [i, j) of one minute, those Thin keeps.
func (c *Capability) pickMinute(i, j int, keep []bool) {
	first, last := [2]int{-1, -1}, [2]int{-1, -1} // by refused
	longest, lastOK := -1, -1
	for k := i; k < j; k++ {
		u := c.Uses[k]
		if u.Open {
			keep[k] = true
			continue
		}
		r := 0
		if u.Refused {
			r = 1
		} else {
			lastOK = k
		}
		if first[r] < 0 {
			first[r] = k
		}
		last[r] = k
		if u.Dur > 0 && (longest < 0 || u.Dur > c.Uses[longest].Dur) {
			longest = k
		}
	}
	for r := range 2 {
		if first[r] >= 0 {
			keep[first[r]], keep[last[r]] = true, true
		}
	}
	if longest >= 0 {
		keep[longest] = true
	}
	// the refusals from the last use allowed on: where a run of refusals
	// to the end would begin
	for k := lastOK + 1; lastOK >= 0 && k < j; k++ {
		if !c.Uses[k].Open && c.Uses[k].Refused {
			keep[k] = true
			break
		}
	}
}

// addMinutes adds the counts of b to those of a, both in minute order.
func addMinutes(a, b []Minute) []Minute {
	out := make([]Minute, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0].At < b[0].At:
			out, a = append(out, a[0]), a[1:]
		case len(a) == 0 || b[0].At < a[0].At:
			out, b = append(out, b[0]), b[1:]
		default:
			m := a[0]
			m.N, m.Refused = m.N+b[0].N, m.Refused+b[0].Refused
			out, a, b = append(out, m), a[1:], b[1:]
		}
	}
	return out
}

// ThinDue says the capability holds at least at uses, and twice what the
// last Thin left: thinning again would drop enough to be worth its work.
func (c *Capability) ThinDue(at int) bool {
	to := 0
	if c.thinned != nil {
		to = c.thinned.to
	}
	return len(c.Uses) >= max(at, 2*to)
}

// UsesInOrder says uses are in time order already: a stable sort would
// leave them as they are.
func UsesInOrder(uses []Use) bool {
	return slices.IsSortedFunc(uses, func(a, b Use) int { return a.Time.Compare(b.Time) })
}
