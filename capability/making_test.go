package capability

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// anyUse is a use of any shape the pass adds: ids that pack and ids that
// do not, times in UTC, in another zone and with a monotonic reading,
// strings empty, shared and many.
func anyUse(r *rand.Rand, i int) Use {
	base := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	u := Use{Time: base.Add(time.Duration(r.IntN(1e6)) * time.Millisecond), ID: fmt.Sprintf("%016x", r.Uint64()),
		Dur: Millis(r.IntN(3) * r.IntN(5000)), Refused: r.IntN(3) == 0, Open: r.IntN(5) == 0,
		Source: []string{"", "ledger", "proxy", "sensor"}[r.IntN(4)], Format: []string{"", "squid", "envoy"}[r.IntN(3)]}
	switch r.IntN(6) {
	case 0:
		u.ID = fmt.Sprintf("e%d", i)
	case 1:
		u.ID = ""
	case 2:
		u.Time = u.Time.In(time.FixedZone("UTC+2", 2*3600))
	case 3:
		u.Time = time.Now() // a monotonic reading
	}
	if r.IntN(2) == 0 {
		u.From = fmt.Sprintf("10.0.%d.%d", r.IntN(4), r.IntN(20)) // many: found by the map
	}
	return u
}

// What is added in the making settles to the uses added, field for field,
// after the uses the capability held already.
func TestSettleGivesTheUsesAdded(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	held := Use{Time: time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC), ID: "held"}
	c := &Capability{Kind: Credential, Uses: []Use{held}}
	want := []Use{held}
	for i := range 2000 {
		u := anyUse(r, i)
		c.AddUse(u)
		want = append(want, u)
	}
	if c.Making() != 2000 || len(c.mk.strs) <= manyStrs || c.mk.index == nil {
		t.Fatalf("%d in the making, %d strings, index %v", c.Making(), len(c.mk.strs), c.mk.index != nil)
	}
	if id, ok := c.LastUseID(); !ok || id != want[len(want)-1].ID {
		t.Errorf("last use id %q, %v; want %q", id, ok, want[len(want)-1].ID)
	}
	c.Settle()
	if c.Making() != 0 || len(c.Uses) != len(want) {
		t.Fatalf("settled %d uses, %d still in the making; want %d", len(c.Uses), c.Making(), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(c.Uses[i], want[i]) {
			t.Fatalf("use %d settled as %+v, added %+v", i, c.Uses[i], want[i])
		}
	}
}

// CloseUse closes the latest open use with the id, as a tool result
// closes its call: it lasted until the result, refused if the result
// says so; a use not open, or another id, is left as it is.
func TestCloseUse(t *testing.T) {
	at := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	for _, id := range []string{"00000000000000aa", "call-1"} {
		c := &Capability{Kind: ToolCall}
		c.AddUse(Use{Time: at, ID: id, Source: "ledger"})                                       // closed already
		c.AddUse(Use{Time: at.Add(time.Second), ID: id, Open: true, Source: "ledger"})          // the one
		c.AddUse(Use{Time: at.Add(2 * time.Second), ID: "other", Open: true, Source: "ledger"}) // another id
		if c.CloseUse("nope", at.Add(time.Minute), false) {
			t.Fatal("closed a use of an id never added")
		}
		if !c.CloseUse(id, at.Add(4*time.Second), true) {
			t.Fatalf("%s: no open use closed", id)
		}
		if c.CloseUse(id, at.Add(5*time.Second), false) {
			t.Fatalf("%s: closed twice", id)
		}
		c.Settle()
		got := c.Uses
		want := []Use{
			{Time: at, ID: id, Source: "ledger"},
			{Time: at.Add(4 * time.Second), ID: id, Dur: Millis(3 * time.Second), Refused: true, Source: "ledger"},
			{Time: at.Add(2 * time.Second), ID: "other", Open: true, Source: "ledger"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: closed to\n%+v\nwant\n%+v", id, got, want)
		}
	}
	// a result earlier than its call (clocks): closed, its time kept
	c := &Capability{Kind: ToolCall}
	c.AddUse(Use{Time: at, ID: "c", Open: true})
	c.CloseUse("c", at.Add(-time.Second), false)
	c.Settle()
	if u := c.Uses[0]; u.Open || !u.Time.Equal(at) || u.Dur != 0 {
		t.Errorf("closed before it began: %+v", u)
	}
}

// A copy sharing the uses settles to those added before it was made,
// however the capability goes on (more uses, a call closed in a fresh
// list after a thinning); a clone shares nothing.
func TestCopiesOfTheMaking(t *testing.T) {
	at := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	c := &Capability{Kind: ToolCall}
	for i := range 300 {
		c.AddUse(Use{Time: at.Add(time.Duration(i) * 100 * time.Millisecond), ID: fmt.Sprintf("%016x", i), Source: "ledger", Open: i == 299})
	}
	shared, clone := c.CloneSharingUses(), c.Clone()
	for i := 300; i < 400; i++ {
		c.AddUse(Use{Time: at.Add(time.Duration(i) * 100 * time.Millisecond), ID: fmt.Sprintf("%016x", i), Source: "proxy"})
	}
	if c.Thin(at.Add(time.Hour)) == 0 {
		t.Fatal("nothing thinned")
	}
	c.CloseUse(fmt.Sprintf("%016x", 299), at.Add(time.Hour), true)
	for name, d := range map[string]*Capability{"shared": shared, "clone": clone} {
		d.Settle()
		if len(d.Uses) != 300 || !d.Uses[299].Open || d.Uses[299].Refused || slices.ContainsFunc(d.Uses, func(u Use) bool { return u.Source == "proxy" }) {
			t.Errorf("%s copy: %d uses, the last %+v", name, len(d.Uses), d.Uses[len(d.Uses)-1])
		}
	}
	if !c.UsedVia(func(s string) bool { return s == "proxy" }) || c.UsedVia(func(s string) bool { return s == "sensor" }) {
		t.Error("UsedVia does not tell the sources of the uses in the making")
	}
}
