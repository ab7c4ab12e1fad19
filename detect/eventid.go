package detect

import (
	"cmp"
	"slices"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// A correlator that keeps many events for citing keeps their ids as
// numbers where it can (evidence.PackID): at ten million events the pass
// cites millions of events, and marking their id strings on every cycle
// made a replay slower per event than at one million.

// packedHit is a hit as a long list of them keeps it (citeList): its time
// in seconds and nanoseconds and its id packed, 24 bytes the collector
// does not scan. ref is 0 when the hit is the list's agent's, its time in
// UTC and its id packs; otherwise the list keeps the hit whole, in its
// odd at ref-1, and id is 0.
type packedHit struct {
	sec  int64
	id   uint64
	nsec int32
	ref  uint32
}

func packedByTime(a, b packedHit) int {
	if a.sec != b.sec {
		return cmp.Compare(a.sec, b.sec)
	}
	return cmp.Compare(a.nsec, b.nsec)
}

// citeList is an agent's hits kept for citing, packed: in time order as
// merge keeps them (plan_divergence's stretches, open for hours, cite a
// third of what the bench incident's findings cite), or in the order
// added (denial_adaptation's adaptations, each a range of the list).
type citeList struct {
	hits []packedHit
	odd  []hit
}

// len is how many hits the list holds.
func (l *citeList) len() int { return len(l.hits) }

// lastAt is the time of the list's last hit (it holds one at least).
func (l *citeList) lastAt() time.Time {
	p := l.hits[len(l.hits)-1]
	return time.Unix(p.sec, int64(p.nsec))
}

// add appends h, agent's or not, to the list.
func (l *citeList) add(h hit, agent string) {
	l.hits = append(l.hits, l.pack(h, agent))
}

func (l *citeList) pack(h hit, agent string) packedHit {
	p := packedHit{sec: h.t.Unix(), nsec: int32(h.t.Nanosecond())}
	if h.agent == agent && h.t.Location() == time.UTC {
		if n, ok := evidence.PackID(h.id); ok {
			p.id = n
			return p
		}
	}
	l.odd = append(l.odd, h)
	p.ref = uint32(len(l.odd))
	return p
}

// merge adds add (any order) as mergeByTime would: the stable sort by
// time of the list's hits followed by add's. It returns the first place
// whose hit changed: the list's length before, when add only followed.
func (l *citeList) merge(add []hit, agent string) int {
	if len(add) == 0 {
		return len(l.hits)
	}
	if !slices.IsSortedFunc(add, hitByTime) {
		slices.SortStableFunc(add, hitByTime)
	}
	packed := make([]packedHit, len(add))
	for i, h := range add {
		packed[i] = l.pack(h, agent)
	}
	var from int
	l.hits, from = mergeFrom(l.hits, packed, packedByTime)
	return from
}

// all are the list's hits, unpacked, in its order: the ids of the packed
// ones are cut from one string (a finding made of a stretch of 10,000
// calls allocates twice, not 10,000 times).
func (l *citeList) all(agent string) []hit {
	return l.unpackAll(l.hits, agent)
}

// unpackAll unpacks ps, hits of l, as all does.
func (l *citeList) unpackAll(ps []packedHit, agent string) []hit {
	buf := make([]byte, 0, 16*len(ps))
	for _, p := range ps {
		if p.ref == 0 {
			buf = evidence.AppendID(buf, p.id)
		}
	}
	ids := string(buf)
	out := make([]hit, len(ps))
	for i, p := range ps {
		if p.ref > 0 {
			out[i] = l.odd[p.ref-1]
			continue
		}
		out[i] = hit{t: time.Unix(p.sec, int64(p.nsec)).UTC(), id: ids[:16], agent: agent}
		ids = ids[16:]
	}
	return out
}

// keyOf is what p cites its event by, and when: its id packed (n), or,
// when the id does not pack, the id (odd). An odd hit whose id packs is
// keyed as a packed one of the same id would be.
func (l *citeList) keyOf(p packedHit) (n uint64, odd string, at citeAt) {
	if p.ref == 0 {
		return p.id, "", citeAt{p.sec, p.nsec}
	}
	h := l.odd[p.ref-1]
	at = citeAt{h.t.Unix(), int32(h.t.Nanosecond())}
	if n, ok := evidence.PackID(h.id); ok {
		return n, "", at
	}
	return 0, h.id, at
}

// idOf is the id of p, keyed by keyOf as n or odd.
func (l *citeList) idOf(p packedHit, n uint64, odd string) string {
	switch {
	case odd != "":
		return odd
	case p.ref > 0:
		return l.odd[p.ref-1].id
	}
	return evidence.UnpackID(n)
}

// packsTo says id packs to n.
func packsTo(id string, n uint64) bool {
	m, ok := evidence.PackID(id)
	return ok && m == n
}

// clone is a copy of l that merges without touching l.
func (l *citeList) clone() citeList {
	return citeList{hits: slices.Clone(l.hits), odd: slices.Clone(l.odd)}
}
