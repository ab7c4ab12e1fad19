package detect

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// sequence is ordered_sequence: per group, an event of each step, in step
// order, all within the window of the first. Completed sequences that
// start within a window of the previous one's end make one episode; the
// condition counts the sequences of an episode.
type sequence struct {
	r      *Rule
	group  evidence.Field
	groups map[string]*seqGroup
	// aside holds, per group, the later steps' hits of the last instant
	// that no first step's hit could use (see add).
	aside map[string]*aside
}

// seqGroup is a group's hits per step, in time order, from where the
// sequences found final end (sweep); final are those sequences.
type seqGroup struct {
	steps [][]hit
	final [][]hit
}

type aside struct {
	t     time.Time
	steps [][]hit
}

func newSequence(r *Rule) *sequence {
	g, _ := evidence.LookupField(r.Correlation.GroupBy)
	return &sequence{r: r, group: g, groups: map[string]*seqGroup{}, aside: map[string]*aside{}}
}

// add takes an event of a step, in time order. A later step's hit belongs
// to a sequence only if a first step's hit comes at or before it and at
// most a window before it: one past the window after the group's last
// first-step hit can only serve a first-step hit of its own instant still
// to come. Those of the last such instant are put aside until one comes
// (then they join, in their order) or time moves on (then they go).
func (s *sequence) add(step int, ev *evidence.Event) {
	g := s.r.groupKey(s.group, step, ev)
	if g == "" {
		return
	}
	h := hit{t: ev.Time, id: ev.ID, agent: ev.Agent}
	if step == 0 {
		if a := s.aside[g]; a != nil {
			delete(s.aside, g)
			if a.t.Equal(h.t) {
				for k, hs := range a.steps {
					for _, x := range hs {
						s.addHit(k, g, x)
					}
				}
			}
		}
		s.addHit(0, g, h)
		return
	}
	if sg := s.groups[g]; sg != nil && len(sg.steps[0]) > 0 && !h.t.After(sg.steps[0][len(sg.steps[0])-1].t.Add(s.r.Correlation.Window)) {
		s.addHit(step, g, h)
		return
	}
	a := s.aside[g]
	switch {
	case a == nil:
		a = &aside{t: h.t, steps: make([][]hit, len(s.r.Correlation.Steps))}
		s.aside[g] = a
	case !a.t.Equal(h.t):
		// the instant put aside before is gone: its record holds this one
		// (a group of later steps alone, such as every request of an agent
		// that read no credential, comes here at each instant)
		a.t = h.t
		for k := range a.steps {
			a.steps[k] = a.steps[k][:0]
		}
	}
	a.steps[step] = append(a.steps[step], h)
}

// addHit takes a step's hit, in time order within the step.
func (s *sequence) addHit(step int, g string, h hit) {
	sg := s.groups[g]
	if sg == nil {
		sg = &seqGroup{steps: make([][]hit, len(s.r.Correlation.Steps))}
		s.groups[g] = sg
	}
	sg.steps[step] = append(sg.steps[step], h)
}

func (s *sequence) done() []Finding {
	var out []Finding
	for _, g := range sortedKeys(s.groups) {
		sg := s.groups[g]
		seqs, _ := s.find(sg.steps, time.Time{})
		seqs = append(sg.final[:len(sg.final):len(sg.final)], seqs...)
		if len(seqs) == 0 {
			continue
		}
		// Episodes: a sequence starting within a window of the previous
		// one's end continues it.
		start := 0
		for i := 1; i <= len(seqs); i++ {
			if i < len(seqs) && !seqs[i][0].t.After(seqs[i-1][len(seqs[i-1])-1].t.Add(s.r.Correlation.Window)) {
				continue
			}
			run := seqs[start:i]
			start = i
			if !s.r.Correlation.Condition.Holds(float64(len(run))) {
				continue
			}
			var hits []hit
			for _, q := range run {
				hits = append(hits, q...)
			}
			out = append(out, s.r.finding(g, hits, map[string]string{
				"sequences": strconv.Itoa(len(run)), "steps": s.stepNames(),
			}))
		}
	}
	return out
}

// find returns completed sequences, earliest first, never sharing events:
// the next search starts after the last event of the previous sequence.
// With before set, it stops at the first first-step hit whose window
// reaches before (a sequence from it may still take events to come) and
// says where: the sequences found up to there are final.
func (s *sequence) find(steps [][]hit, before time.Time) ([][]hit, int) {
	var out [][]hit
	window := s.r.Correlation.Window
	pos := make([]int, len(steps))
	for pos[0] < len(steps[0]) {
		first := steps[0][pos[0]]
		if !before.IsZero() && !first.t.Add(window).Before(before) {
			break
		}
		pos[0]++
		chain := []hit{first}
		ok := true
		for k := 1; k < len(steps) && ok; k++ {
			prev := chain[len(chain)-1]
			list := steps[k]
			i := sort.Search(len(list), func(i int) bool { return !list[i].t.Before(prev.t) })
			for i < len(list) && inChain(chain, list[i].id) {
				i++
			}
			if i == len(list) || list[i].t.After(first.t.Add(window)) {
				ok = false
				break
			}
			chain = append(chain, list[i])
		}
		if !ok {
			continue
		}
		out = append(out, chain)
		last := chain[len(chain)-1].t
		for pos[0] < len(steps[0]) && !steps[0][pos[0]].t.After(last) {
			pos[0]++
		}
	}
	return out, pos[0]
}

func inChain(chain []hit, id string) bool {
	for _, h := range chain {
		if h.id == id {
			return true
		}
	}
	return false
}

func (s *sequence) stepNames() string {
	var names []string
	for i, st := range s.r.Correlation.Steps {
		n := st.Name
		if n == "" {
			n = "step " + strconv.Itoa(i+1)
		}
		names = append(names, n)
	}
	sep := " → "
	if s.r.Correlation.Type == Temporal && !s.r.Correlation.Ordered {
		sep = ", "
	}
	return strings.Join(names, sep)
}
