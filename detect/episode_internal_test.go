package detect

import (
	"math/rand/v2"
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

// A following pass's matches grow as a correlator grows them: an open
// match's events and values appended to in place, its end moved on, new
// matches after it. The episode they make is taken on from what gathered
// it last time, and must be what Episodes makes of the same matches at
// every round, without writing anything an earlier round gave.
func TestEpisodeTakenOnAsItsMatchesGrow(t *testing.T) {
	t0 := time.Date(2026, 8, 11, 10, 0, 0, 0, time.UTC)
	gap := func(string) time.Duration { return time.Minute }
	rnd := rand.New(rand.NewPCG(7, 34))
	var ms []Finding
	var made map[string]*madeEpisode
	type given struct{ events, values []string }
	var answers [][]given // every round's episodes, as given and as copied then
	var copies [][]given
	takenOn := 0
	event := 0
	for round := range 300 {
		at := t0.Add(time.Duration(round) * 10 * time.Second)
		for range 1 + rnd.IntN(3) {
			agent := "agent-" + strconv.Itoa(rnd.IntN(3))
			open := -1
			for i := range ms {
				if ms[i].Agent == agent {
					open = i // the agent's latest match
				}
			}
			switch r := rnd.IntN(10); {
			case open >= 0 && r < 6:
				// the open match grows in place, as an open stretch's
				// list does: appended to, never written
				m := &ms[open]
				for range 1 + rnd.IntN(4) {
					event++
					id := "e" + strconv.Itoa(event)
					if rnd.IntN(5) == 0 && len(m.Events) > 0 {
						id = ms[rnd.IntN(len(ms))].Events[0] // an event another match cites
					}
					if !slices.Contains(m.Events, id) {
						m.Events = append(m.Events, id)
					}
				}
				if rnd.IntN(3) == 0 {
					m.Values = append(m.Values, "v"+strconv.Itoa(rnd.IntN(6)))
				}
				if rnd.IntN(4) == 0 {
					m.Matches++
				}
				m.End = at
			case open >= 0 && r < 7:
				// made anew: another list
				m := &ms[open]
				m.Events = append(slices.Clone(m.Events[:len(m.Events)/2]), "e"+strconv.Itoa(event+1))
				event++
				m.End = at
			case open >= 0 && r < 8:
				ms[open].Severity = "high"
			case open >= 0 && r < 9 && rnd.IntN(2) == 0:
				// its end drawn back, its list grown in place
				m := &ms[open]
				event++
				m.Events = append(m.Events, "e"+strconv.Itoa(event))
				m.End = m.Start
			default:
				event++
				start := at
				if rnd.IntN(4) == 0 {
					start = at.Add(5 * time.Minute) // past the gap: an episode of its own
				}
				f := Finding{Detector: "rule", Agent: agent, Severity: "medium", Start: start, End: start,
					Events: append(make([]string, 0, 2), "e"+strconv.Itoa(event)), Matches: 1, Explanation: "x"}
				f.ID = findingID(f, 0)
				ms = append(ms, f)
			}
		}
		accs := map[*episodeAcc]int{} // what gathered each episode of several matches, and its events
		for _, e := range made {
			if e.acc != nil {
				accs[e.acc] = len(e.f.Events)
			}
		}
		var got []Finding
		got, made = episodesFrom(slices.Clone(ms), gap, made, true)
		for _, e := range made {
			if n, ok := accs[e.acc]; ok && len(e.f.Events) > n {
				takenOn++
			}
		}
		want := Episodes(slices.Clone(ms), gap)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d episodes, want %d", round, len(got), len(want))
		}
		for i := range want {
			if !sameEpisode(got[i], want[i]) {
				t.Fatalf("round %d: episode %d is\n%+v, want\n%+v", round, i, got[i], want[i])
			}
		}
		var gave, copied []given
		for _, f := range got {
			gave = append(gave, given{f.Events, f.Values})
			copied = append(copied, given{slices.Clone(f.Events), slices.Clone(f.Values)})
		}
		answers, copies = append(answers, gave), append(copies, copied)
		for r := range answers {
			for i := range answers[r] {
				if !slices.Equal(answers[r][i].events, copies[r][i].events) || !slices.Equal(answers[r][i].values, copies[r][i].values) {
					t.Fatalf("round %d wrote episode %d of round %d: %v, given as %v", round, i, r, answers[r][i], copies[r][i])
				}
			}
		}
	}
	if takenOn == 0 {
		t.Fatal("no episode was taken on from what gathered it")
	}
}
