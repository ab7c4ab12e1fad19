package detect

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// A match list gives back each match as it was added: its time (in UTC,
// beyond the nanoseconds a match keeps too: after 2116, before 1824),
// its hits in the order given, ids of every shape and hits of another
// agent among them, and its description or none.
func TestMatchListGivesBackWhatWasAdded(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	zone := time.FixedZone("X", -5*3600)
	anyTime := func() time.Time {
		switch r.IntN(5) {
		case 0:
			return time.Date(2200+r.IntN(500), 3, 1, 0, 0, r.IntN(60), r.IntN(1e9), zone)
		case 1:
			return time.Date(1000+r.IntN(800), 3, 1, 0, 0, r.IntN(60), r.IntN(1e9), time.UTC)
		}
		return time.Date(2026, 8, 11, 10, 0, r.IntN(60), r.IntN(1e9), zone)
	}
	same := func(a, b hit) bool { return a.t.Equal(b.t) && a.id == b.id && a.agent == b.agent }
	type added struct {
		t    time.Time
		hits []hit
		desc string
	}
	for round := range 300 {
		var l matchList
		var want []added
		for range r.IntN(20) {
			a := added{t: anyTime()}
			for range r.IntN(4) {
				agent := "a"
				if r.IntN(5) == 0 {
					agent = "b"
				}
				a.hits = append(a.hits, hit{t: anyTime().UTC(), id: anyID(r), agent: agent})
			}
			if r.IntN(2) == 0 {
				a.desc = "described " + anyID(r)
			}
			l.add(a.t, a.hits, "a", a.desc)
			want = append(want, a)
		}
		if l.len() != len(want) {
			t.Fatalf("round %d: %d matches, want %d", round, l.len(), len(want))
		}
		for i, a := range want {
			if got := l.at(i); !got.Equal(a.t) || got.Location() != time.UTC {
				t.Fatalf("round %d, match %d: at %v, want %v in UTC", round, i, got, a.t)
			}
			if got := l.hits(i, "a"); !slices.EqualFunc(got, a.hits, same) {
				t.Fatalf("round %d, match %d: hits %v, want %v", round, i, got, a.hits)
			}
			if got := l.desc(i); got != a.desc {
				t.Fatalf("round %d, match %d: described %q, want %q", round, i, got, a.desc)
			}
		}
	}
}
