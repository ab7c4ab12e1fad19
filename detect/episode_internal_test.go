package detect

import (
	"slices"
	"strconv"
	"testing"
	"time"
)

// Episodes made again from those made before take an episode made
// before only where its matches are the ones it was made of: a match
// whose events are another list, even of the same length and span, or
// the same list grown, or another field changed, makes it again; and
// what is taken is what Episodes makes of the same matches.
func TestEpisodesMadeAgainWhereAMatchChanged(t *testing.T) {
	t0 := time.Date(2026, 8, 11, 10, 0, 0, 0, time.UTC)
	gap := func(string) time.Duration { return time.Minute }
	match := func(agent string, at int, events ...string) Finding {
		f := Finding{Detector: "rule", Agent: agent, Severity: "medium", Start: t0.Add(time.Duration(at) * time.Second),
			End: t0.Add(time.Duration(at+5) * time.Second), Events: events, Matches: 1, Explanation: "x"}
		f.ID = findingID(f, 0)
		return f
	}
	grown := append(make([]string, 0, 8), "e1", "e2")
	before := []Finding{
		match("a", 0, "e1", "e2"), match("a", 30, "e3"), // one episode of two matches
		match("a", 600, "e9"), // another, alone
		{Detector: "rule", Agent: "b", Start: t0, End: t0, Events: grown, Matches: 1},
	}
	_, made := episodesFrom(before, gap, nil, true)
	if len(made) != 3 {
		t.Fatalf("%d episodes kept, want 3", len(made))
	}
	for _, tc := range []struct {
		name   string
		change func([]Finding)
		again  int // the episode made again, by its place in before
	}{
		{"nothing changed", func([]Finding) {}, -1},
		{"another list of the same length and span", func(ms []Finding) { ms[1].Events = []string{"e4"} }, 0},
		{"the same list grown", func(ms []Finding) { ms[3].Events = append(ms[3].Events, "e5") }, 3},
		{"a field changed", func(ms []Finding) { ms[2].Severity = "high" }, 2},
		{"a match added to the episode", func(ms []Finding) { ms[2].Start = t0.Add(40 * time.Second) }, 0},
	} {
		ms := slices.Clone(before)
		tc.change(ms)
		got, _ := episodesFrom(ms, gap, made, true)
		want := Episodes(slices.Clone(ms), gap)
		if len(got) != len(want) {
			t.Fatalf("%s: %d episodes, want %d", tc.name, len(got), len(want))
		}
		for i := range want {
			if !sameEpisode(got[i], want[i]) {
				t.Errorf("%s: episode %d is %+v, want %+v", tc.name, i, got[i], want[i])
			}
		}
		// the episode of two matches is gathered anew when made again:
		// taken, it is the very list made before
		first := made[before[0].ID].f.Events
		taken := len(got[0].Events) > 0 && &got[0].Events[0] == &first[0]
		if taken != (tc.again != 0) {
			t.Errorf("%s: the first episode taken as made before: %v", tc.name, taken)
		}
	}
}

func sameEpisode(a, b Finding) bool {
	return a.Detector == b.Detector && a.Agent == b.Agent && a.Start.Equal(b.Start) && a.End.Equal(b.End) &&
		a.Severity == b.Severity && a.Matches == b.Matches && a.Explanation == b.Explanation &&
		slices.Equal(a.Events, b.Events) && slices.Equal(a.Values, b.Values)
}

// An episode's values are its matches' distinct values in first-seen
// order, however many.
func TestEpisodeValuesDistinctInOrder(t *testing.T) {
	t0 := time.Date(2026, 8, 11, 10, 0, 0, 0, time.UTC)
	gap := func(string) time.Duration { return time.Hour }
	for _, n := range []int{1, 3, 16, 50} {
		var ms []Finding
		var want []string
		seen := map[string]bool{}
		for i := range 4 {
			var vals []string
			for j := range n {
				v := "v" + strconv.Itoa((i*n/2+j)%(n+3))
				vals = append(vals, v)
				if !seen[v] {
					seen[v] = true
					want = append(want, v)
				}
			}
			ms = append(ms, Finding{Detector: "rule", Agent: "a", Start: t0.Add(time.Duration(i) * time.Minute),
				End: t0.Add(time.Duration(i) * time.Minute), Events: []string{"e" + strconv.Itoa(i)}, Values: vals})
		}
		got := Episodes(ms, gap)
		if len(got) != 1 || !slices.Equal(got[0].Values, want) {
			t.Fatalf("%d values a match: %d episodes, values %v, want %v", n, len(got), got[0].Values, want)
		}
	}
}
