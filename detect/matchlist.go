package detect

import "time"

// matchList is an agent's matches of a correlation, in the order found:
// each its time, the hits it cites, packed (cites, from its lo to the
// next one's), and its description when a finding lists it (descs).
// denial_adaptation's adaptations and intent_mismatch's summaries are
// kept so. A match is 16 bytes the collector does not scan: at ten
// million events in six hours there were a million adaptations, 56
// bytes each with two pointers, and intent_mismatch's summaries held
// their hits whole, 56 bytes each with three.
type matchList struct {
	found []listed
	cites citeList
	descs []string
	// far are the times of the matches out of the range a listed keeps
	// (nanosOf), by their place in found
	far map[int]time.Time
}

// listed is a match in the list.
type listed struct {
	at   int64 // its time, nanosOf
	lo   int32 // its first hit in cites
	desc int32 // its description's place in descs plus one (0: none)
}

// add adds a match at t citing hits, packed for agent, described by
// desc ("": not described).
func (l *matchList) add(t time.Time, hits []hit, agent, desc string) {
	at, exact := nanosOf(t)
	if !exact {
		if l.far == nil {
			l.far = map[int]time.Time{}
		}
		l.far[len(l.found)] = t.UTC()
	}
	f := listed{at: at, lo: int32(len(l.cites.hits))}
	for _, h := range hits {
		l.cites.add(h, agent)
	}
	if desc != "" {
		l.descs = append(l.descs, desc)
		f.desc = int32(len(l.descs))
	}
	l.found = append(l.found, f)
}

// len is how many matches the list holds.
func (l *matchList) len() int { return len(l.found) }

// at is the i-th match's time.
func (l *matchList) at(i int) time.Time {
	if t, ok := l.far[i]; ok {
		return t
	}
	return time.Unix(0, l.found[i].at).UTC()
}

// packed are the i-th match's hits, packed.
func (l *matchList) packed(i int) []packedHit {
	hi := len(l.cites.hits)
	if i+1 < len(l.found) {
		hi = int(l.found[i+1].lo)
	}
	return l.cites.hits[l.found[i].lo:hi]
}

// hits are the i-th match's hits, for agent.
func (l *matchList) hits(i int, agent string) []hit {
	return l.cites.unpackAll(l.packed(i), agent)
}

// desc is the i-th match's description ("" when none was made).
func (l *matchList) desc(i int) string {
	if d := l.found[i].desc; d > 0 {
		return l.descs[d-1]
	}
	return ""
}
