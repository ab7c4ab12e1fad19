package detect

import "time"

// matchList is an agent's matches of a correlation, in the order found:
// each its time, the hits it cites, packed (cites, from its lo to the
// next one's), and its description when a finding lists it (descs).
// denial_adaptation's adaptations and intent_mismatch's summaries are
// kept so. A match is 24 bytes the collector does not scan: at ten
// million events in six hours there were a million adaptations, 56
// bytes each with two pointers, and intent_mismatch's summaries held
// their hits whole, 56 bytes each with three.
type matchList struct {
	found []adaptFound
	cites citeList
	descs []string
}

type adaptFound struct {
	sec  int64
	lo   int // its first hit in cites
	nsec int32
	desc int32 // its description's place in descs plus one (0: none)
}

// add adds an adaptation at t citing hits, packed for agent, described
// by desc ("": not described).
func (as *matchList) add(t time.Time, hits []hit, agent, desc string) {
	f := adaptFound{sec: t.Unix(), nsec: int32(t.Nanosecond()), lo: len(as.cites.hits)}
	for _, h := range hits {
		as.cites.add(h, agent)
	}
	if desc != "" {
		as.descs = append(as.descs, desc)
		f.desc = int32(len(as.descs))
	}
	as.found = append(as.found, f)
}

// len is how many adaptations were found.
func (as *matchList) len() int { return len(as.found) }

// at is the i-th adaptation's time.
func (as *matchList) at(i int) time.Time {
	return time.Unix(as.found[i].sec, int64(as.found[i].nsec)).UTC()
}

// packed are the i-th adaptation's hits, packed.
func (as *matchList) packed(i int) []packedHit {
	hi := len(as.cites.hits)
	if i+1 < len(as.found) {
		hi = as.found[i+1].lo
	}
	return as.cites.hits[as.found[i].lo:hi]
}

// hits are the i-th adaptation's hits, for agent.
func (as *matchList) hits(i int, agent string) []hit {
	return as.cites.unpackAll(as.packed(i), agent)
}

// desc is the i-th adaptation's description ("" when none was made).
func (as *matchList) desc(i int) string {
	if d := as.found[i].desc; d > 0 {
		return as.descs[d-1]
	}
	return ""
}
