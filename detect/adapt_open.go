package detect

import (
	"cmp"
	"slices"
	"time"
)

// adaptOpen is an episode of adaptations from the from-th to the upto-th
// as newFinding would cite them: its hits in time order (stable), each
// event once, at the time of its first hit in that order (cited, by id:
// packed where the id packs, citedOdd where it does not), its refusals
// and descriptions.
type adaptOpen struct {
	from, upto int
	hits       []hit
	cited      map[uint64]citeAt
	citedOdd   map[string]citeAt
	denials    map[string]bool
	descs      []string
}

// citeAt is the instant a hit cites its event at.
type citeAt struct {
	sec  int64
	nsec int32
}

func (a citeAt) before(b citeAt) bool { return a.sec < b.sec || a.sec == b.sec && a.nsec < b.nsec }

func newAdaptOpen(start int) adaptOpen {
	return adaptOpen{from: start, upto: start, cited: map[uint64]citeAt{}, citedOdd: map[string]citeAt{}, denials: map[string]bool{}}
}

// extend adds as's adaptations from the o.upto-th to the one before the
// upto-th to the episode as newFinding would cite the whole of it: the
// hits sorted by time (stable: after those of the same time already
// cited), each event once, where it comes first. A denial's hits carry
// the denial's time, so an event may come again earlier than where it
// was cited: it moves there.
//
// The adaptations after a refusal cite its hits again, each of them:
// most of the hits added are events cited already. They are compared
// packed (cites.hits), and only the first of each event is unpacked.
func (o *adaptOpen) extend(as *matchList, upto int, agent string) {
	cites := &as.cites
	// the added hits' first of each event, in the order a stable sort by
	// time would give them: earliest, then first added
	type first struct {
		p   packedHit
		n   uint64 // keyOf's
		odd string
		at  citeAt
		seq int
	}
	var firsts []first
	byID, byOdd := map[uint64]int{}, map[string]int{}
	seq := 0
	for k := o.upto; k < upto; k++ {
		for i, p := range as.packed(k) {
			n, odd, at := cites.keyOf(p)
			if i == 0 {
				o.denials[cites.idOf(p, n, odd)] = true
			}
			var k int
			var seen bool
			if odd == "" {
				k, seen = byID[n]
			} else {
				k, seen = byOdd[odd]
			}
			switch {
			case !seen:
				if odd == "" {
					byID[n] = len(firsts)
				} else {
					byOdd[odd] = len(firsts)
				}
				firsts = append(firsts, first{p, n, odd, at, seq})
			case at.before(firsts[k].at):
				firsts[k] = first{p, n, odd, at, seq}
			}
			seq++
		}
		o.descs = append(o.descs, as.desc(k))
	}
	o.upto = upto
	slices.SortFunc(firsts, func(a, b first) int {
		if a.at != b.at {
			if a.at.before(b.at) {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.seq, b.seq)
	})
	keep := make([]packedHit, 0, len(firsts))
	for _, f := range firsts {
		n, odd := f.n, f.odd
		var was citeAt
		var ok bool
		if odd == "" {
			was, ok = o.cited[n]
		} else {
			was, ok = o.citedOdd[odd]
		}
		if ok && !f.at.before(was) {
			continue // cited already, as early or earlier
		}
		if ok {
			o.uncite(n, odd, was)
		}
		if odd == "" {
			o.cited[n] = f.at
		} else {
			o.citedOdd[odd] = f.at
		}
		keep = append(keep, f.p)
	}
	o.hits = mergeByTime(o.hits, cites.unpackAll(keep, agent))
}

// uncite takes out of the hits the one citing the event (n packed, or odd)
// at t.
func (o *adaptOpen) uncite(n uint64, odd string, t citeAt) {
	at := time.Unix(t.sec, int64(t.nsec))
	i, _ := slices.BinarySearchFunc(o.hits, at, func(x hit, t time.Time) int { return x.t.Compare(t) })
	for ; i < len(o.hits) && o.hits[i].t.Equal(at); i++ {
		h := o.hits[i].id
		if odd != "" && h == odd || odd == "" && packsTo(h, n) {
			o.hits = slices.Delete(o.hits, i, i+1)
			return
		}
	}
}
