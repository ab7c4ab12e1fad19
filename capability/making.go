package capability

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// A pass adds uses to a capability at most of the events it reads, and
// finishes the capability once: while it adds them (AddUse) the uses are
// kept packed, in memory the collector does not scan, and Settle makes
// them Uses. A Use holds four strings and a time: at ten million events
// the uses in the making were a third of what the collector marked on
// every cycle. Packed, a use is its time in seconds and nanoseconds, its
// id as a number (the 16 hex digits evidence.MakeID gives), and its
// strings as indexes in its capability's own list of them: a
// capability's uses come from a source or two, through a format or two,
// from a few places.

// making is a capability's uses while a pass adds them, in the order
// added (Thin puts those it looks at in time order), and what Thin
// dropped of them.
type making struct {
	uses []packedUse
	// strs are the From, Source and Format values of the uses, each once;
	// index finds them once there are many.
	strs  []string
	index map[string]uint32
	odd   *oddParts
	// thinned is what Thin dropped, for Compact to add (nil: nothing).
	// It is made anew, never changed: copies share it.
	thinned *thinned
}

// oddParts are what few uses have: ids evidence.PackID does not keep,
// times not kept exactly by their seconds and nanoseconds in UTC.
type oddParts struct {
	ids   []string
	times []time.Time
}

// packedUse is a Use as making keeps it. A string is its index in strs
// plus one (0: ""); id is evidence.PackID's number, or with oddID an
// index in the odd ids; at is 0, or an index in the odd times plus one.
type packedUse struct {
	sec                  int64
	id                   uint64
	dur                  Millis
	nsec                 int32
	from, source, format uint32
	at                   uint32
	flags                uint8
}

const (
	useRefused = 1 << iota
	useOpen
	oddID
)

// settleThinAt is how many uses in the making Settle thins before it
// unpacks them (past keepUses Compact thins them anyway, to the same):
// below it, thinning them costs a view more than unpacking them all.
const settleThinAt = 512

// manyStrs is how many strings a capability's uses hold before they are
// found by a map rather than by looking through them.
const manyStrs = 16

func (p *packedUse) minute() int64 { return minuteOfUnix(p.sec) }

func packedByTime(a, b packedUse) int {
	return cmp.Or(cmp.Compare(a.sec, b.sec), cmp.Compare(a.nsec, b.nsec))
}

// AddUse adds a use to those the capability holds in the making; Settle
// makes them its Uses.
func (c *Capability) AddUse(u Use) {
	if c.mk == nil {
		c.mk = &making{}
	}
	c.mk.uses = append(c.mk.uses, c.mk.pack(u))
}

func (m *making) pack(u Use) packedUse {
	p := packedUse{dur: u.Dur, from: m.str(u.From), source: m.str(u.Source), format: m.str(u.Format)}
	m.setTime(&p, u.Time)
	if n, ok := evidence.PackID(u.ID); ok {
		p.id = n
	} else {
		o := m.oddParts()
		p.id, p.flags = uint64(len(o.ids)), oddID
		o.ids = append(o.ids, u.ID)
	}
	if u.Refused {
		p.flags |= useRefused
	}
	if u.Open {
		p.flags |= useOpen
	}
	return p
}

func (m *making) setTime(p *packedUse, t time.Time) {
	p.sec, p.nsec, p.at = t.Unix(), int32(t.Nanosecond()), 0
	if u := time.Unix(p.sec, int64(p.nsec)).UTC(); u != t {
		// another zone, or a monotonic reading: kept as it is
		o := m.oddParts()
		p.at = uint32(len(o.times)) + 1
		o.times = append(o.times, t)
	}
}

func (m *making) oddParts() *oddParts {
	if m.odd == nil {
		m.odd = &oddParts{}
	}
	return m.odd
}

func (m *making) str(s string) uint32 {
	if s == "" {
		return 0
	}
	if m.index != nil {
		if i, ok := m.index[s]; ok {
			return i + 1
		}
	} else if i := slices.Index(m.strs, s); i >= 0 {
		return uint32(i) + 1
	}
	m.strs = append(m.strs, s)
	switch {
	case m.index != nil:
		m.index[s] = uint32(len(m.strs) - 1)
	case len(m.strs) > manyStrs:
		m.index = make(map[string]uint32, len(m.strs))
		for i, x := range m.strs {
			m.index[x] = uint32(i)
		}
	}
	return uint32(len(m.strs))
}

func (m *making) unstr(i uint32) string {
	if i == 0 {
		return ""
	}
	return m.strs[i-1]
}

func (m *making) idOf(p *packedUse) string {
	if p.flags&oddID != 0 {
		return m.odd.ids[p.id]
	}
	return evidence.UnpackID(p.id)
}

// unpack is the use p is; id is its id when it packs ("": written anew).
func (m *making) unpack(p *packedUse, id string) Use {
	if p.flags&oddID != 0 || id == "" {
		id = m.idOf(p)
	}
	return Use{Time: m.timeOf(p), ID: id, Dur: p.dur, Refused: p.flags&useRefused != 0, Open: p.flags&useOpen != 0,
		From: m.unstr(p.from), Source: m.unstr(p.source), Format: m.unstr(p.format)}
}

func (m *making) timeOf(p *packedUse) time.Time {
	if p.at != 0 {
		return m.odd.times[p.at-1]
	}
	return time.Unix(p.sec, int64(p.nsec)).UTC()
}

// Settle makes the uses in the making the capability's Uses, after those
// it holds already; it is done before the capability is finished, once
// no use is to come. Each use is moved back by shift of its source first
// (a clock skew taken off its source; nil: none). Past settleThinAt they
// are thinned first, and only what Compact and finishing read is
// unpacked: a view settles a busy agent's tool calls at every refresh.
// What Thin dropped is kept for Compact.
func (c *Capability) Settle(shift func(source string) time.Duration) {
	if shift != nil {
		c.shift(shift)
	}
	if c.Making() == 0 {
		return
	}
	if len(c.mk.uses) > settleThinAt {
		c.thinBefore(math.MaxInt64, true)
	}
	// the packed ids written out in one string, each use's cut from it
	buf := make([]byte, 0, 16*len(c.mk.uses))
	for i := range c.mk.uses {
		if p := &c.mk.uses[i]; p.flags&oddID == 0 {
			buf = evidence.AppendID(buf, p.id)
		}
	}
	ids := string(buf)
	uses := make([]Use, 0, len(c.Uses)+len(c.mk.uses))
	uses = append(uses, c.Uses...)
	for i := range c.mk.uses {
		p := &c.mk.uses[i]
		u := c.mk.unpack(p, ids[:min(16, len(ids))])
		if p.flags&oddID == 0 {
			ids = ids[16:]
		}
		uses = append(uses, u)
	}
	c.Uses = uses
	// no other capability holds this making (shared and clone make their own)
	if *c.mk = (making{thinned: c.mk.thinned}); c.mk.thinned == nil {
		c.mk = nil
	}
}

// shift moves each use back by shift of its source.
func (c *Capability) shift(shift func(source string) time.Duration) {
	uses := slices.Clone(c.Uses) // a copy's may be another's
	for i := range uses {
		if d := shift(uses[i].Source); d != 0 {
			uses[i].Time = uses[i].Time.Add(-d)
		}
	}
	c.Uses = uses
	if c.mk == nil {
		return
	}
	var moved []packedUse // a copy: a view may be reading the uses it shares
	var src uint32        // the source d is of
	var d time.Duration
	for i := range c.mk.uses {
		p := &c.mk.uses[i]
		if i == 0 || p.source != src {
			src, d = p.source, shift(c.mk.unstr(p.source))
		}
		if d == 0 {
			continue
		}
		if moved == nil {
			moved = slices.Clone(c.mk.uses)
		}
		p = &moved[i]
		c.mk.setTime(p, c.mk.timeOf(p).Add(-d))
	}
	if moved != nil {
		c.mk.uses = moved
	}
}

// UseSources are the sources of its uses, each once.
func (c *Capability) UseSources() []string {
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for i := range c.Uses {
		add(c.Uses[i].Source)
	}
	if c.mk != nil {
		var last uint32
		for i := range c.mk.uses {
			if s := c.mk.uses[i].source; s != last || i == 0 {
				add(c.mk.unstr(s))
				last = s
			}
		}
	}
	return out
}

// Making is how many uses the capability holds in the making.
func (c *Capability) Making() int {
	if c.mk == nil {
		return 0
	}
	return len(c.mk.uses)
}

// LastUseID is the id of the last use added in the making, if any.
func (c *Capability) LastUseID() (string, bool) {
	if c.Making() == 0 {
		return "", false
	}
	return c.mk.idOf(&c.mk.uses[len(c.mk.uses)-1]), true
}

// CloseUse closes the latest open use in the making with the id: it
// lasted until at (when that is later than its time, which becomes at),
// refused if refused says so. It reports whether there was one.
func (c *Capability) CloseUse(id string, at time.Time, refused bool) bool {
	if c.mk == nil {
		return false
	}
	n, packs := evidence.PackID(id)
	for i := len(c.mk.uses) - 1; i >= 0; i-- {
		p := &c.mk.uses[i]
		if p.flags&useOpen == 0 {
			continue
		}
		if packs && (p.flags&oddID != 0 || p.id != n) || !packs && (p.flags&oddID == 0 || c.mk.odd.ids[p.id] != id) {
			continue
		}
		if t := c.mk.timeOf(p); at.After(t) {
			p.dur = Millis(at.Sub(t))
			c.mk.setTime(p, at)
		}
		p.flags &^= useOpen
		if refused {
			p.flags |= useRefused
		}
		return true
	}
	return false
}

// shared is m for a copy that reads it while m goes on being added to:
// the copy's slices end where m's end now.
func (m *making) shared() *making {
	if m == nil {
		return nil
	}
	return &making{uses: slices.Clip(m.uses), strs: slices.Clip(m.strs), odd: m.odd.clipped(), thinned: m.thinned}
}

// clone is a copy of m that shares nothing with it.
func (m *making) clone() *making {
	if m == nil {
		return nil
	}
	return &making{uses: slices.Clone(m.uses), strs: slices.Clone(m.strs), odd: m.odd.cloned(), thinned: m.thinned}
}

func (o *oddParts) clipped() *oddParts {
	if o == nil {
		return nil
	}
	return &oddParts{ids: slices.Clip(o.ids), times: slices.Clip(o.times)}
}

func (o *oddParts) cloned() *oddParts {
	if o == nil {
		return nil
	}
	return &oddParts{ids: slices.Clone(o.ids), times: slices.Clone(o.times)}
}
