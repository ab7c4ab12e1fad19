package detect

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unsafe"
)

// A finding is an episode: the matches of one rule about one agent that
// follow each other within the rule's gap are one finding, so that a
// detector firing on every summary of a long run gives one line to read,
// not hundreds. Every reader of findings (the CLI, the console, the
// report, the assistant, the exports, a live watcher) gets episodes from
// here and nowhere else.

// Gap is how far apart two matches of r may be and still be one episode:
// the rule's gap when it states one, else its window (a match's window
// reaching the next match is one stretch of activity).
func (r *Rule) Gap() time.Duration {
	if r.Correlation.Gap > 0 {
		return r.Correlation.Gap
	}
	return r.Correlation.Window
}

// Episodes merges matches into episodes: per detector and agent, in start
// order, a match that starts no later than gap(detector) after the end of
// the episode so far joins it. The result keeps the matches' order of
// first appearance; ids are left for uniqueIDs. Each match cites each of
// its events once, as a correlator's do.
func Episodes(matches []Finding, gap func(detector string) time.Duration) []Finding {
	out, _ := episodesFrom(matches, gap, nil, false)
	return out
}

// episodesFrom is Episodes. With keep, it also gives each episode made, by
// its first match's id, to be made again from (was): an episode whose
// matches are those it was made of (sameMatch) is the one made then. A
// following pass asks at every round, and most of a rule's episodes
// ended long before.
func episodesFrom(matches []Finding, gap func(detector string) time.Duration, was map[string]*madeEpisode, keep bool) ([]Finding, map[string]*madeEpisode) {
	var made map[string]*madeEpisode
	if keep {
		made = make(map[string]*madeEpisode, len(was))
	}
	idx := make([]int, len(matches))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		x, y := &matches[a], &matches[b]
		if c := strings.Compare(x.Detector, y.Detector); c != 0 {
			return c
		}
		if c := strings.Compare(x.Agent, y.Agent); c != 0 {
			return c
		}
		return compareFindings(x, y)
	})
	var out []Finding
	for at := 0; at < len(idx); {
		// the episode's matches first, to size what it gathers once: a
		// match joins while it starts within gap of the latest end before it
		first := &matches[idx[at]]
		end, size, n := first.End, len(first.Events), at+1
		for ; n < len(idx); n++ {
			m := &matches[idx[n]]
			if m.Detector != first.Detector || m.Agent != first.Agent || m.Start.After(end.Add(gap(m.Detector))) {
				break
			}
			if m.End.After(end) {
				end = m.End
			}
			size += len(m.Events)
		}
		run := idx[at:n]
		at = n
		// the last episode of its agent's is the one the matches to come
		// grow: what gathered it is kept to be taken on
		last := n == len(idx) || matches[idx[n]].Detector != first.Detector || matches[idx[n]].Agent != first.Agent
		e := was[first.ID]
		if e != nil && e.of(matches, run) {
			out = append(out, e.f)
			if keep {
				if !last {
					e.acc = nil
				}
				made[first.ID] = e
			}
			continue
		}
		var a *episodeAcc
		if keep && e != nil && e.grows(matches, run) {
			k := len(e.matches)
			a = e.acc
			a.grow(e.matches[k-1], matches[run[k-1]])
			for _, i := range run[k:] {
				a.join(matches[i])
			}
		} else {
			a = newEpisodeAcc(*first, size, len(run) > 1)
			for _, i := range run[1:] {
				a.join(matches[i])
			}
		}
		f := a.finish()
		out = append(out, f)
		if keep {
			e := &madeEpisode{f: f, matches: make([]Finding, len(run))}
			for k, i := range run {
				e.matches[k] = matches[i]
			}
			if last && len(run) > 1 {
				e.acc = a
			}
			made[first.ID] = e
		}
	}
	return out, made
}

// madeEpisode is an episode made, and the matches it was made of. acc is
// what gathered it when it is the last of its agent's and of several
// matches: the one a following pass's matches grow (an open stretch's
// calls, a new mismatch), taken on rather than gathered again.
type madeEpisode struct {
	f       Finding
	matches []Finding
	acc     *episodeAcc
}

// grows says the episode's gathering can be taken on for the matches run
// of ms: its matches but the last are run's first, unchanged (sameMatch),
// and run's next is its last grown (grownMatch). An episode of several
// matches keeps its first.
func (e *madeEpisode) grows(ms []Finding, run []int) bool {
	k := len(e.matches)
	if e.acc == nil || len(run) < k {
		return false
	}
	for j, i := range run[:k-1] {
		if !sameMatch(&ms[i], &e.matches[j]) {
			return false
		}
	}
	return grownMatch(&e.matches[k-1], &ms[run[k-1]])
}

// grownMatch says now is was as a correlator grows a match: its events
// and values was's with more after them, its end no earlier, its
// severity the same (its matches are counted again, whatever they are).
// What an episode takes from a match it does not start is no more than
// these. The lists are compared, not their arrays: one grown past its
// capacity is a copy (comparing strings that share their bytes costs a
// pointer each).
func grownMatch(was, now *Finding) bool {
	extends := func(x, y []string) bool {
		return len(y) >= len(x) && slices.Equal(x, y[:len(x)])
	}
	return was.Severity == now.Severity && !now.End.Before(was.End) &&
		extends(was.Events, now.Events) && extends(was.Values, now.Values)
}

// of says the episode was made of the matches run of ms, in their order.
func (e *madeEpisode) of(ms []Finding, run []int) bool {
	if len(run) != len(e.matches) {
		return false
	}
	for k, i := range run {
		if !sameMatch(&ms[i], &e.matches[k]) {
			return false
		}
	}
	return true
}

// sameMatch says a and b are one match as a correlator gave it: every
// field equal, and their lists the same lists. A correlator never writes
// a list it gave (a finding's events, values, tags): one made again is
// made anew, or grown past what it gave.
func sameMatch(a, b *Finding) bool {
	same := func(x, y []string) bool {
		return len(x) == len(y) && unsafe.SliceData(x) == unsafe.SliceData(y)
	}
	return a.ID == b.ID && a.Detector == b.Detector && a.Title == b.Title && a.Agent == b.Agent &&
		a.Severity == b.Severity && a.Start == b.Start && a.End == b.End && a.Explanation == b.Explanation &&
		a.Phase == b.Phase && a.Matches == b.Matches && a.EventCount == b.EventCount &&
		a.ValueCount == b.ValueCount && a.group == b.group &&
		same(a.Events, b.Events) && same(a.Values, b.Values) && same(a.Tags, b.Tags)
}

// episodeAcc gathers the matches of one episode.
type episodeAcc struct {
	f Finding
	// ids holds the episode's events when several matches join (nil for
	// one: a match cites each event once)
	ids     map[string]struct{}
	vals    map[string]bool
	matches int
}

// newEpisodeAcc starts an episode at m, of size events at most (its
// matches' events, counted again where they share one).
func newEpisodeAcc(m Finding, size int, several bool) *episodeAcc {
	a := &episodeAcc{f: m, vals: map[string]bool{}}
	// one match's episode cites its events: the list is shared, as a
	// correlator never writes a list it gave (sameMatch)
	if several {
		a.f.Events = append(make([]string, 0, size), m.Events...)
		a.ids = make(map[string]struct{}, size)
		for _, id := range m.Events {
			a.ids[id] = struct{}{}
		}
	}
	a.f.Values = nil
	a.count(m)
	return a
}

func (a *episodeAcc) join(m Finding) {
	if m.End.After(a.f.End) {
		a.f.End = m.End
	}
	if SeverityRank(m.Severity) > SeverityRank(a.f.Severity) {
		a.f.Severity = m.Severity
	}
	a.cite(m.Events)
	a.count(m)
}

// grow takes on the gathering for was grown into now (grownMatch): what
// now adds to it, as joining now in was's place would have.
func (a *episodeAcc) grow(was, now Finding) {
	if now.End.After(a.f.End) {
		a.f.End = now.End
	}
	a.cite(now.Events[len(was.Events):])
	a.matches += matchesOf(now) - matchesOf(was)
	a.values(now.Values[len(was.Values):])
}

// cite adds the events not cited yet. The list is only appended to: an
// answer given shares it up to its own length.
func (a *episodeAcc) cite(events []string) {
	for _, id := range events {
		// one lookup: the set grew when the event is new to it
		n := len(a.ids)
		if a.ids[id] = struct{}{}; len(a.ids) > n {
			a.f.Events = append(a.f.Events, id)
		}
	}
}

// count adds m's matches and values.
func (a *episodeAcc) count(m Finding) {
	a.matches += matchesOf(m)
	a.values(m.Values)
}

// matchesOf is how many matches m counts for: its Matches, one at least.
func matchesOf(m Finding) int { return max(m.Matches, 1) }

// values adds the values not among the episode's yet.
func (a *episodeAcc) values(vs []string) {
	for _, v := range vs {
		if !a.vals[v] {
			a.vals[v] = true
			a.f.Values = append(a.f.Values, v)
		}
	}
}

// finish is the episode as a finding. A single match keeps its own
// explanation; an episode of several says how many and until when, after
// the first match's explanation (which stays put as the episode grows).
func (a *episodeAcc) finish() Finding {
	f := a.f
	if cap(f.Events) > 2*len(f.Events) {
		// its matches shared most of their events: what it keeps is
		// what it cites
		f.Events = slices.Clone(f.Events)
	}
	f.Matches = a.matches
	if f.Matches > 1 {
		f.Explanation += fmt.Sprintf(" (%d times, until %s)", f.Matches, f.End.Format(time.TimeOnly))
	}
	return f
}

// Evidence is the first n evidence ids of f and how many more it cites:
// views show a capped list with a count, --json keeps them all.
func (f Finding) Evidence(n int) (ids []string, more int) {
	ids = f.Events[:min(n, len(f.Events))]
	return ids, f.EventTotal() - len(ids)
}

// EventTotal is how many events f cites: its events, or EventCount on a
// copy that names only some of them.
func (f Finding) EventTotal() int { return max(len(f.Events), f.EventCount) }

// withValues sets the distinct values that drove a match.
func withValues(f Finding, vals []string) Finding {
	f.Values = append([]string(nil), vals...)
	return f
}
