package assist

import (
	"fmt"
	"sort"
	"time"
)

// Shrink drops the least relevant events of p until its evidence is
// within budget tokens (counted with count): the events of no finding
// first, thinned evenly over time as the packet was sampled, then the
// findings' own. why, when not "", is said in the packet's account of
// itself; "" says the model's context was the reason.
func (p Packet) Shrink(budget int, count func(string) int, why string) Packet {
	if count == nil {
		count = approxTokens
	}
	switch {
	case why == "" && p.shrunkWhy != "":
		why = p.shrunkWhy // fitting after a refusal: the refusal is the reason
	case why == "":
		why = fmt.Sprintf("fitted to the model's context of %d tokens", p.ContextTokens)
	}
	findingLines, fUsed, fLeft := trimLines(p.FindingLines, budget/2, count)
	capLines, cUsed, cLeft := trimLines(p.CapabilityLines, budget/2-fUsed, count)
	left := budget - fUsed - cUsed
	costs := make([]int, len(p.Events))
	var first, rest []int
	for i, e := range p.Events {
		costs[i] = count(e.Line) + 1
		if e.InFinding {
			first = append(first, i)
		} else {
			rest = append(rest, i)
		}
	}
	at := func(i int) time.Time { return p.Events[i].Time }
	var keep []int
	for _, group := range [][]int{first, rest} {
		for _, i := range spread(at, group) {
			if costs[i] > left {
				continue
			}
			left -= costs[i]
			keep = append(keep, i)
		}
	}
	if len(keep) == len(p.Events) && fLeft+cLeft == 0 {
		return p
	}
	sort.Ints(keep)
	out := p
	out.FindingLines, out.CapabilityLines = findingLines, capLines
	out.LinesLeftOut += fLeft + cLeft
	out.Events, out.Injections, out.ids = nil, nil, map[string]bool{}
	out.FindingEvents, out.Tokens = 0, budget-left
	flagged := map[string]Flag{}
	for _, f := range p.Injections {
		flagged[f.EventID] = f
	}
	for _, i := range keep {
		e := p.Events[i]
		out.Events = append(out.Events, e)
		out.ids[e.ID] = true
		if e.InFinding {
			out.FindingEvents++
		}
		if f, ok := flagged[e.ID]; ok && e.Flagged {
			out.Injections = append(out.Injections, f)
		}
	}
	dropped := len(p.Events) - len(out.Events)
	out.Sent = len(out.Events)
	out.Sampled = true
	out.BudgetTokens = budget
	if out.Shrunk != "" {
		dropped += shrunkCount(out.Shrunk)
	}
	out.Shrunk = fmt.Sprintf("%d more left out, %s: the events of no finding first", dropped, why)
	out.shrunkWhy = why
	return out
}

// shrunkCount reads back how many events an earlier Shrink dropped.
func shrunkCount(s string) int {
	var n int
	fmt.Sscanf(s, "%d", &n)
	return n
}
