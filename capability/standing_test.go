package capability

import (
	"testing"
	"time"
)

// Two Standings read in different zones say the same when their instants
// and words do; any field that differs makes them differ.
func TestStandingEqual(t *testing.T) {
	kill := time.Date(2026, 8, 11, 10, 21, 3, 10e6, time.UTC)
	a := Standing{Kill: kill, By: "the harness's ledger", Contained: true, ContainedAt: kill.Add(time.Minute), Holds: false, Headline: "Contained"}
	b := a
	b.Kill, b.ContainedAt = kill.In(time.FixedZone("CEST", 2*3600)), a.ContainedAt.In(time.FixedZone("X", -3600))
	if a == b || !a.Equal(b) {
		t.Errorf("the same instants in other zones: == %v, Equal %v", a == b, a.Equal(b))
	}
	for _, change := range []func(*Standing){
		func(s *Standing) { s.Kill = s.Kill.Add(time.Millisecond) },
		func(s *Standing) { s.ContainedAt = time.Time{} },
		func(s *Standing) { s.By = "the request's kill" },
		func(s *Standing) { s.Contained = false },
		func(s *Standing) { s.Holds = true },
		func(s *Standing) { s.Headline = "Not contained" },
	} {
		c := a
		change(&c)
		if a.Equal(c) {
			t.Errorf("%+v equals %+v", c, a)
		}
	}
}
