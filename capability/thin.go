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
func (c *Capability) Thin(before time.Time) int { return c.thinBefore(minuteOf(before), false) }

// thinBefore is Thin of the uses in minutes before the minute b; settled
// says no use will move again (Settle): an open use is thinned as any
// other, as Compact does.
func (c *Capability) thinBefore(b int64, settled bool) int {
	if c.mk == nil {
		return 0
	}
	m := c.mk
	if !slices.IsSortedFunc(m.uses, packedByTime) {
		// a copy: a view may be reading the uses it shares
		m.uses = slices.Clone(m.uses)
		slices.SortStableFunc(m.uses, packedByTime)
	}
	n := sort.Search(len(m.uses), func(i int) bool { return m.uses[i].minute() >= b })
	if n == 0 {
		return 0
	}
	keep := make([]bool, n)
	for i := 0; i < n; {
		j := i
		for j < n && m.uses[j].minute() == m.uses[i].minute() {
			j++
		}
		pickMinute(m.uses[i:j], keep[i:j], settled)
		i = j
	}
	if c.Kind == Place {
		// a place's credentials: each one keeps a use (endPlace reads
		// them); the same From is the same index
		froms := map[uint32]bool{}
		for i := range m.uses {
			if i >= n || keep[i] {
				froms[m.uses[i].from] = true
			}
		}
		for i := range n {
			if !keep[i] && !froms[m.uses[i].from] {
				keep[i], froms[m.uses[i].from] = true, true
			}
		}
	}
	var gone []Minute
	kept := make([]packedUse, 0, len(m.uses)-n+n/8)
	for i := range m.uses[:n] {
		p := &m.uses[i]
		if keep[i] {
			kept = append(kept, *p)
			continue
		}
		at := p.minute()
		if len(gone) == 0 || gone[len(gone)-1].At != at {
			gone = append(gone, Minute{At: at})
		}
		gone[len(gone)-1].N++
		if p.flags&useRefused != 0 {
			gone[len(gone)-1].Refused++
		}
	}
	var was []Minute
	if m.thinned != nil {
		was = m.thinned.dropped
	}
	if len(gone) > 0 {
		m.uses = append(kept, m.uses[n:]...)
	}
	// anew, not changed: a copy a view finishes may share it
	m.thinned = &thinned{dropped: addMinutes(was, gone), to: len(m.uses)}
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

// pickMinute marks, of the uses of one minute, those Thin keeps: every
// open one unless settled.
func pickMinute(uses []packedUse, keep []bool, settled bool) {
	open := uint8(useOpen)
	if settled {
		open = 0
	}
	first, last := [2]int{-1, -1}, [2]int{-1, -1} // by refused
	longest, lastOK := -1, -1
	for k := range uses {
		u := &uses[k]
		if u.flags&open != 0 {
			keep[k] = true
			continue
		}
		r := 0
		if u.flags&useRefused != 0 {
			r = 1
		} else {
			lastOK = k
		}
		if first[r] < 0 {
			first[r] = k
		}
		last[r] = k
		if u.dur > 0 && (longest < 0 || u.dur > uses[longest].dur) {
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
	for k := lastOK + 1; lastOK >= 0 && k < len(uses); k++ {
		if uses[k].flags&(open|useRefused) == useRefused {
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

// ThinDue says the capability holds at least at uses in the making, and twice what the
// last Thin left: thinning again would drop enough to be worth its work.
func (c *Capability) ThinDue(at int) bool {
	to := 0
	if c.mk != nil && c.mk.thinned != nil {
		to = c.mk.thinned.to
	}
	return c.Making() >= max(at, 2*to)
}

// UsesInOrder says uses are in time order already: a stable sort would
// leave them as they are.
func UsesInOrder(uses []Use) bool {
	return slices.IsSortedFunc(uses, func(a, b Use) int { return a.Time.Compare(b.Time) })
}
