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

// packedHit is a hit as a long list of them keeps it (citeList): 16 bytes
// the collector does not scan. at is its time in nanoseconds since 1970,
// shifted left once; its low bit says the list keeps the hit whole, in its
// odd at id. Otherwise the hit is the list's agent's, its time in UTC, and
// id is its id packed. A hit of another agent, of another zone, whose id
// does not pack, or whose time is out of the range nanoseconds keep
// (1824 to 2116; at then holds the nearer end of it) is kept whole.
type packedHit struct {
	at int64
	id uint64
}

// The nanoseconds a packedHit keeps, shifted left once into an int64.
const (
	minNanos = -1 << 62
	maxNanos = 1<<62 - 1
)

// nanosOf is t in nanoseconds since 1970 as a packedHit keeps it, and
// whether it is t exactly (false: the nearer end of the range).
func nanosOf(t time.Time) (int64, bool) {
	sec := t.Unix()
	switch {
	case sec > maxNanos/int64(time.Second):
		return maxNanos, false
	case sec < minNanos/int64(time.Second):
		return minNanos, false
	}
	ns := sec*int64(time.Second) + int64(t.Nanosecond())
	switch {
	case ns > maxNanos:
		return maxNanos, false
	case ns < minNanos:
		return minNanos, false
	}
	return ns, true
}

// odd says the list keeps p whole.
func (p packedHit) odd() bool { return p.at&1 == 1 }

// nanos is p's time as the list orders it.
func (p packedHit) nanos() int64 { return p.at >> 1 }

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
	return l.timeOf(l.hits[len(l.hits)-1])
}

// timeOf is p's time.
func (l *citeList) timeOf(p packedHit) time.Time {
	if p.odd() {
		return l.odd[p.id].t
	}
	return time.Unix(0, p.nanos()).UTC()
}

// byTime orders the list's hits by time: by their nanoseconds, and two
// at one end of their range by their own times.
func (l *citeList) byTime(a, b packedHit) int {
	if c := cmp.Compare(a.nanos(), b.nanos()); c != 0 || a.nanos() != minNanos && a.nanos() != maxNanos {
		return c
	}
	return l.timeOf(a).Compare(l.timeOf(b))
}

// add appends h, agent's or not, to the list.
func (l *citeList) add(h hit, agent string) {
	l.hits = append(l.hits, l.pack(h, agent))
}

func (l *citeList) pack(h hit, agent string) packedHit {
	ns, exact := nanosOf(h.t)
	if exact && h.agent == agent && h.t.Location() == time.UTC {
		if n, ok := evidence.PackID(h.id); ok {
			return packedHit{at: ns << 1, id: n}
		}
	}
	l.odd = append(l.odd, h)
	return packedHit{at: ns<<1 | 1, id: uint64(len(l.odd) - 1)}
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
	l.hits, from = mergeFrom(l.hits, packed, l.byTime)
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
		if !p.odd() {
			buf = evidence.AppendID(buf, p.id)
		}
	}
	ids := string(buf)
	out := make([]hit, len(ps))
	for i, p := range ps {
		if p.odd() {
			out[i] = l.odd[p.id]
			continue
		}
		out[i] = hit{t: l.timeOf(p), id: ids[:16], agent: agent}
		ids = ids[16:]
	}
	return out
}

// keyOf is what p cites its event by, and when: its id packed (n), or,
// when the id does not pack, the id (odd). An odd hit whose id packs is
// keyed as a packed one of the same id would be.
func (l *citeList) keyOf(p packedHit) (n uint64, odd string, at citeAt) {
	t := l.timeOf(p)
	at = citeAt{t.Unix(), int32(t.Nanosecond())}
	if !p.odd() {
		return p.id, "", at
	}
	h := l.odd[p.id]
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
	case p.odd():
		return l.odd[p.id].id
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
