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
// after the uses the capability held already, where Compact keeps them
// all (keepUses or fewer).
func TestSettleGivesTheUsesAdded(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	indexed := false
	for round := range 40 {
		held := Use{Time: time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC), ID: "held"}
		c := &Capability{Kind: Credential, Uses: []Use{held}}
		want := []Use{held}
		for i := range keepUses - 1 {
			u := anyUse(r, i)
			c.AddUse(u)
			want = append(want, u)
		}
		indexed = indexed || c.mk.index != nil
		if id, ok := c.LastUseID(); !ok || id != want[len(want)-1].ID {
			t.Errorf("last use id %q, %v; want %q", id, ok, want[len(want)-1].ID)
		}
		c.Settle(nil)
		if c.Making() != 0 || len(c.Uses) != len(want) {
			t.Fatalf("round %d: settled %d uses, %d still in the making; want %d", round, len(c.Uses), c.Making(), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(c.Uses[i], want[i]) {
				t.Fatalf("round %d: use %d settled as %+v, added %+v", round, i, c.Uses[i], want[i])
			}
		}
	}
	if !indexed {
		t.Error("no capability held enough strings to find them by the map")
	}
}

// Settled, moved by a clock skew, and compacted, the uses in the making
// give what the same uses given whole, moved, sorted and compacted give:
// past keepUses Settle thins them first, keeping what Compact and
// finishing read (a place's credentials, where the last refusals began).
func TestSettleThenCompactIsCompact(t *testing.T) {
	base := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	shift := func(source string) time.Duration {
		if source == "proxy" {
			return 90 * time.Second
		}
		return 0
	}
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 11))
		kind := []Kind{Credential, Place, ToolCall}[seed%3]
		made := &Capability{Kind: kind}
		whole := &Capability{Kind: kind}
		now := base
		n := []int{10, 64, 65, 400, 3000}[r.IntN(5)]
		for i := range n {
			now = now.Add(time.Duration(r.IntN(900)) * time.Millisecond)
			u := Use{Time: now, ID: fmt.Sprintf("%016x", r.Uint64()), Refused: r.IntN(3) == 0 || i > 300 && seed%2 == 0,
				Dur: Millis(r.IntN(3) * r.IntN(5000)), From: fmt.Sprintf("k%d", r.IntN(4)), Source: []string{"ledger", "proxy"}[r.IntN(2)], Open: r.IntN(60) == 0}
			if i == n/2 {
				u.From = "used once" // in a busy minute: kept for the place alone
			}
			made.AddUse(u)
			u.Time = u.Time.Add(-shift(u.Source))
			whole.Uses = append(whole.Uses, u)
		}
		made.Settle(shift)
		sortUses(made)
		sortUses(whole)
		if kind == Place {
			froms := map[string]bool{}
			for _, u := range made.Uses {
				froms[u.From] = true
			}
			for _, u := range whole.Uses {
				if !froms[u.From] {
					t.Fatalf("seed %d: the place's credential %s has no use settled", seed, u.From)
				}
			}
		}
		if last, i := refusedFrom(whole.Uses); last != nil {
			if l, _ := refusedFrom(made.Uses); l == nil || *l != *last {
				t.Fatalf("seed %d: the refusals to the end begin at %v settled, %v whole (use %d)", seed, l, last, i)
			}
		}
		made.Compact()
		whole.Compact()
		if !reflect.DeepEqual(made.Uses, whole.Uses) || !reflect.DeepEqual(made.Minutes, whole.Minutes) {
			t.Fatalf("seed %d (%s): settled then compacted keeps %d uses, %d minutes; whole %d, %d", seed, kind, len(made.Uses), len(made.Minutes), len(whole.Uses), len(whole.Minutes))
		}
	}
}

// refusedFrom is the first use of the run of refused uses that ends the
// list, as finishing reads it, and its place.
func refusedFrom(uses []Use) (*Use, int) {
	if len(uses) == 0 || !uses[len(uses)-1].Refused {
		return nil, -1
	}
	i := len(uses) - 1
	for i > 0 && uses[i-1].Refused {
		i--
	}
	return &uses[i], i
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
		c.Settle(nil)
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
	c.Settle(nil)
	if u := c.Uses[0]; u.Open || !u.Time.Equal(at) || u.Dur != 0 {
		t.Errorf("closed before it began: %+v", u)
	}
}

// A copy sharing the uses settles to those added before it was made,
// however the capability goes on (more uses, a call closed in a fresh
// list after a thinning); a clone shares nothing.
func TestCopiesOfTheMaking(t *testing.T) {
	at := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	c, want := &Capability{Kind: ToolCall}, &Capability{Kind: ToolCall}
	for i := range settleThinAt + 100 {
		u := Use{Time: at.Add(time.Duration(i) * 100 * time.Millisecond), ID: fmt.Sprintf("%016x", i), Source: "ledger", Open: i == settleThinAt+99}
		c.AddUse(u)
		want.AddUse(u)
	}
	want.Settle(nil)
	shared, clone := c.CloneSharingUses(), c.Clone()
	for i := settleThinAt + 100; i < settleThinAt+200; i++ {
		c.AddUse(Use{Time: at.Add(time.Duration(i) * 100 * time.Millisecond), ID: fmt.Sprintf("%016x", i), Source: "proxy"})
	}
	if c.Thin(at.Add(time.Hour)) == 0 {
		t.Fatal("nothing thinned")
	}
	if !c.CloseUse(fmt.Sprintf("%016x", settleThinAt+99), at.Add(time.Hour), true) {
		t.Fatal("the open call was not closed")
	}
	for name, d := range map[string]*Capability{"shared": shared, "clone": clone} {
		d.Settle(nil)
		if !reflect.DeepEqual(d.Uses, want.Uses) || !reflect.DeepEqual(d.mk, want.mk) {
			t.Errorf("%s copy settles to %d uses, the last %+v; want %d", name, len(d.Uses), d.Uses[len(d.Uses)-1], len(want.Uses))
		}
	}
	if got := c.UseSources(); !slices.Equal(got, []string{"ledger", "proxy"}) {
		t.Errorf("the sources of the uses in the making: %q", got)
	}
}
