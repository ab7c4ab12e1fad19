package detect

import (
	"fmt"
	"slices"
	"strings"
	"time"
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
	var cur *episodeAcc
	for _, i := range idx {
		m := matches[i]
		if cur != nil && cur.f.Detector == m.Detector && cur.f.Agent == m.Agent && !m.Start.After(cur.f.End.Add(gap(m.Detector))) {
			cur.join(m)
			continue
		}
		if cur != nil {
			out = append(out, cur.finish())
		}
		cur = newEpisodeAcc(m)
	}
	if cur != nil {
		out = append(out, cur.finish())
	}
	return out
}

// episodeAcc gathers the matches of one episode.
type episodeAcc struct {
	f Finding
	// ids holds the episode's events once a second match joins (nil
	// before: a match cites each event once, so the first needs no set)
	ids     map[string]bool
	vals    map[string]bool
	matches int
}

func newEpisodeAcc(m Finding) *episodeAcc {
	a := &episodeAcc{f: m, vals: map[string]bool{}}
	a.f.Events = slices.Clone(m.Events)
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
	if a.ids == nil {
		a.ids = make(map[string]bool, len(a.f.Events)+len(m.Events))
		for _, id := range a.f.Events {
			a.ids[id] = true
		}
	}
	for _, id := range m.Events {
		if !a.ids[id] {
			a.ids[id] = true
			a.f.Events = append(a.f.Events, id)
		}
	}
	a.count(m)
}

// count adds m's matches and values.
func (a *episodeAcc) count(m Finding) {
	n := m.Matches
	if n == 0 {
		n = 1
	}
	a.matches += n
	for _, v := range m.Values {
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
