package detect

import (
	"sort"
	"strconv"

	"github.com/cordon-ir/cordon/evidence"
)

// temporal is events of the steps, in any order, within one window per
// group: a match when the number of distinct steps seen within the window
// meets the condition (by default every step). A match's events are not
// reused by the next one; matches within a gap of each other are one
// episode (Episodes).
type temporal struct {
	r      *Rule
	group  evidence.Field
	groups map[string][]stepHit
}

type stepHit struct {
	hit
	step int
}

func newTemporal(r *Rule) *temporal {
	g, _ := evidence.LookupField(r.Correlation.GroupBy)
	return &temporal{r: r, group: g, groups: map[string][]stepHit{}}
}

func (t *temporal) add(step int, ev *evidence.Event) {
	if g := t.r.groupKey(t.group, step, ev); g != "" {
		t.addHit(step, g, hit{t: ev.Time, id: ev.ID, agent: ev.Agent})
	}
}

func (t *temporal) addHit(step int, g string, h hit) {
	t.groups[g] = append(t.groups[g], stepHit{hit: h, step: step})
}

func (t *temporal) done() []Finding {
	var out []Finding
	window := t.r.Correlation.Window
	steps := len(t.r.Correlation.Steps)
	for _, g := range sortedKeys(t.groups) {
		hs := t.groups[g]
		// the steps are read one after the other: put them in time order
		sort.SliceStable(hs, func(i, j int) bool { return hs[i].t.Before(hs[j].t) })
		counts := make([]int, steps)
		distinct, l := 0, 0
		for j := 0; j < len(hs); j++ {
			if counts[hs[j].step]++; counts[hs[j].step] == 1 {
				distinct++
			}
			for hs[j].t.Sub(hs[l].t) > window {
				if counts[hs[l].step]--; counts[hs[l].step] == 0 {
					distinct--
				}
				l++
			}
			n := distinct
			if t.r.Correlation.Ordered {
				n = inOrder(hs[l:j+1], steps)
			}
			if !t.r.Correlation.Condition.Holds(float64(n)) {
				continue
			}
			hits := make([]hit, 0, j+1-l)
			for _, h := range hs[l : j+1] {
				hits = append(hits, h.hit)
			}
			out = append(out, t.r.finding(g, hits, map[string]string{
				"steps": strconv.Itoa(n) + " of " + t.stepList(),
			}))
			clear(counts)
			distinct, l = 0, j+1
		}
	}
	return out
}

func (t *temporal) stepList() string {
	s := &sequence{r: t.r}
	return s.stepNames()
}

// inOrder is the length of the longest run of distinct steps among hs
// (in time order) whose steps come in the rules' order: best[s] is the
// longest such run ending with step s.
func inOrder(hs []stepHit, steps int) int {
	best := make([]int, steps)
	n := 0
	for _, h := range hs {
		m := 0
		for s := 0; s < h.step; s++ {
			m = max(m, best[s])
		}
		if best[h.step] = max(best[h.step], m+1); best[h.step] > n {
			n = best[h.step]
		}
	}
	return n
}
