package capability

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"
)

// Uses thinned as they come, at boundaries no later use falls before,
// compact to what the whole list compacts to: the same uses kept, the
// same counts per minute. Open uses (calls with no result yet) close
// after a thinning, later, as a result moves them.
func TestThinThenCompactIsCompact(t *testing.T) {
	base := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		var uses []Use
		now := base
		for i := range 3000 {
			now = now.Add(time.Duration(r.IntN(400)) * time.Millisecond)
			id := fmt.Sprintf("%016x", r.Uint64())
			if seed%2 == 1 {
				id = fmt.Sprintf("u%d", i) // ids that do not pack
			}
			u := Use{Time: now, ID: id, Refused: r.IntN(4) == 0, Dur: Millis(r.IntN(3) * r.IntN(5000)), From: fmt.Sprintf("k%d", r.IntN(3))}
			if r.IntN(50) == 0 {
				u.Open = true
			}
			uses = append(uses, u)
		}
		whole := &Capability{Kind: Credential, Uses: answered(uses, len(uses))}
		sortUses(whole)
		whole.Compact()
		thin := &Capability{Kind: Credential}
		closed := map[int]bool{}
		for i := range uses {
			thin.AddUse(uses[i])
			if i%200 == 199 {
				closeIn(thin, uses, i, closed)
				thin.Thin(uses[i].Time.Add(-time.Duration(r.IntN(90)) * time.Second))
			}
		}
		closeIn(thin, uses, len(uses), closed)
		if thin.mk.thinned == nil || len(thin.mk.thinned.dropped) == 0 {
			t.Fatalf("seed %d: nothing thinned", seed)
		}
		thin.Settle(nil)
		sortUses(thin)
		thin.Compact()
		if !reflect.DeepEqual(thin.Uses, whole.Uses) || !reflect.DeepEqual(thin.Minutes, whole.Minutes) {
			t.Fatalf("seed %d: thinned then compacted keeps %d uses, %d minutes; compacted whole %d, %d", seed, len(thin.Uses), len(thin.Minutes), len(whole.Uses), len(whole.Minutes))
		}
	}
}

// sortUses puts the uses in time order, as finishing does before Compact.
func sortUses(c *Capability) {
	sort.SliceStable(c.Uses, func(i, j int) bool { return c.Uses[i].Time.Before(c.Uses[j].Time) })
}

// answered is uses as they stand after the i-th use came: an open use is
// answered 100 uses later, lasting until then, as CloseUse closes it.
func answered(uses []Use, i int) []Use {
	out := append([]Use(nil), uses...)
	for j := range out {
		if out[j].Open && j+100 < i {
			if at := uses[j+100].Time; at.After(out[j].Time) {
				out[j].Dur, out[j].Time = Millis(at.Sub(out[j].Time)), at
			}
			out[j].Open = false
		}
	}
	return out
}

// closeIn closes, in c, the open uses answered by the time the i-th use
// came and not closed yet.
func closeIn(c *Capability, uses []Use, i int, closed map[int]bool) {
	for j := range uses {
		if uses[j].Open && j+100 < i && !closed[j] {
			c.CloseUse(uses[j].ID, uses[j+100].Time, false)
			closed[j] = true
		}
	}
}

// A place keeps a use of each credential used from it, however busy the
// minute it was used in: finishing ends a place by its credentials.
func TestThinKeepsEachCredentialOfAPlace(t *testing.T) {
	base := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	p := &Capability{Kind: Place, Origin: Acquired}
	for i := range 600 {
		from := "k1"
		if i == 300 {
			from = "k2"
		}
		p.AddUse(Use{Time: base.Add(time.Duration(i) * 100 * time.Millisecond), ID: fmt.Sprint(i), From: from})
	}
	if p.Thin(base.Add(time.Hour)) == 0 {
		t.Fatal("nothing thinned")
	}
	p.Settle(nil)
	froms := map[string]bool{}
	for _, u := range p.Uses {
		froms[u.From] = true
	}
	if !froms["k1"] || !froms["k2"] || len(p.Uses) > 12 {
		t.Errorf("thinned place keeps %d uses from %v", len(p.Uses), froms)
	}
}
