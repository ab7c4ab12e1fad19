package detect

import (
	"slices"
	"time"
)

// thinAt is how many uses a capability holds before the pass thins them
// (Capability.Thin): below it, every use is kept to the end, as Compact
// would keep them.
var thinAt = 128

// thin thins the uses of the capabilities holding many, at a sweep: what
// the pass holds of a capability grows with the minutes it was used in,
// not with its uses. now is the time of the event being added: the pass
// is in time order, so no use to come falls before it, and the uses of
// the last minute or two before it are left whole. A capability with a
// use from a source whose clock
// skew is not settled, or is applied, keeps its uses: finishing will move
// them.
func (s *capScan) thin(now time.Time, skews *skewScan) {
	var by map[string]Skew
	settled, asked := false, false
	before := now.Add(-time.Minute)
	// A capability the last sweep left not due, and not touched since,
	// holds the uses it held then: it is not due now. Each is thinned
	// apart from the others, in any order.
	k := 0
	for _, c := range s.thinning {
		if c.ThinDue(thinAt) {
			if !asked {
				by, settled = skews.settled()
				asked = true
			}
			if !slices.ContainsFunc(c.UseSources(), func(source string) bool {
				return skewable(source) && (!settled || by[source].Applied)
			}) {
				c.Thin(before)
			}
		}
		if c.ThinDue(thinAt) {
			s.thinning[k] = c
			k++
		} else {
			delete(s.inThinning, c)
		}
	}
	clear(s.thinning[k:])
	s.thinning = s.thinning[:k]
}
