package detect

import (
	"sort"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// sequence is ordered_sequence: per group, an event of each step, in step
// order, all within the window of the first. Completed sequences that
// start within a window of the previous one's end make one episode; the
// condition counts the sequences of an episode.
type sequence struct {
	r      *Rule
	group  evidence.Field
	groups map[string][][]hit // group -> step -> hits in time order
}

func newSequence(r *Rule) *sequence {
	g, _ := evidence.LookupField(r.Correlation.GroupBy)
	return &sequence{r: r, group: g, groups: map[string][][]hit{}}
}

func (s *sequence) add(step int, ev *evidence.Event) {
	if g := s.r.groupKey(s.group, step, ev); g != "" {
		s.addHit(step, g, hit{t: ev.Time, id: ev.ID, agent: ev.Agent})
	}
}

// addHit takes a step's hit, in time order within the step.
func (s *sequence) addHit(step int, g string, h hit) {
	steps := s.groups[g]
	if steps == nil {
		steps = make([][]hit, len(s.r.Correlation.Steps))
		s.groups[g] = steps
	}
	steps[step] = append(steps[step], h)
}

func (s *sequence) done() []Finding {
	var out []Finding
	for _, g := range sortedKeys(s.groups) {
		seqs := s.find(s.groups[g])
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
func (s *sequence) find(steps [][]hit) [][]hit {
	var out [][]hit
	window := s.r.Correlation.Window
	pos := make([]int, len(steps))
	for pos[0] < len(steps[0]) {
		first := steps[0][pos[0]]
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
	return out
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
