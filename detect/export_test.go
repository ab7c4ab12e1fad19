package detect

import (
	"reflect"
	"runtime"
	"slices"
	"sync/atomic"
)

// RawFindings is what each correlator of p gives before its matches are
// merged into episodes (tests only).
func RawFindings(p *Pass) [][]Finding {
	out := make([][]Finding, len(p.corr))
	for i, c := range p.corr {
		out[i] = c.done()
	}
	return out
}

// FindingsAfresh is p's findings made from nothing each correlator kept
// of the answers before (tests only): what Findings gives must equal it.
// plan-divergence's stretch still open and denial-adaptation's last
// episode are made with newFinding, as closed ones are; what each
// correlator kept is put back after, so the next Findings goes on from it.
func FindingsAfresh(p *Pass) []Finding {
	var restore []func()
	for i, c := range p.corr {
		switch c := c.(type) {
		case *adaptation:
			made := c.made
			c.made, c.afresh = map[string]adaptMade{}, true
			restore = append(restore, func() { c.made, c.afresh = made, false })
		case *dataOut:
			for _, ss := range c.sends {
				made := ss.made
				ss.made = madeOf{}
				c.touch(ss)
				restore = append(restore, func() { ss.made = made })
			}
		case *intent:
			made := c.made
			c.made = map[string]madeOf{}
			restore = append(restore, func() { c.made = made })
		case *expansion:
			kept := *c
			kept.shared = slices.Clone(c.shared)
			c.made = nil
			restore = append(restore, func() { *c = kept })
		case *divergence:
			for _, st := range c.agents {
				kept := *st
				st.changed, st.marks, st.found, st.open = 0, nil, nil, divOpen{ep: -1}
				if st.base > 0 { // from the mark compact kept
					st.changed, st.marks, st.found = st.floor, kept.marks[:1:1], kept.found[:kept.marks[0].found:kept.marks[0].found]
				}
				restore = append(restore, func() { *st = kept })
			}
			c.afresh = true
			restore = append(restore, func() { c.afresh = false })
		}
		p.changed[i] = true
	}
	out := p.Findings()
	for _, r := range restore {
		r()
	}
	return out
}

// MarkEveryCall makes plan-divergence keep a mark at every call it can
// resume from, until the test ends (tests only).
func MarkEveryCall(t interface{ Cleanup(func()) }) {
	was := markEvery
	markEvery = 1
	t.Cleanup(func() { markEvery = was })
}

// CompactCallsAt makes plan-divergence compact an agent's calls once n
// have accumulated, until the test ends (tests only).
func CompactCallsAt(t interface{ Cleanup(func()) }, n int) {
	was := compactCalls
	compactCalls = n
	t.Cleanup(func() { compactCalls = was })
}

// DivergenceCalls is how many calls plan-divergence holds, over every
// agent (tests only).
func DivergenceCalls(p *Pass) int {
	n := 0
	for _, c := range p.corr {
		if d, ok := c.(*divergence); ok {
			for _, st := range d.agents {
				n += len(st.calls)
			}
		}
	}
	return n
}

// DivergenceFirstCall is the event id of the first call plan-divergence
// holds of agent (tests only).
func DivergenceFirstCall(p *Pass, agent string) string {
	for _, c := range p.corr {
		if d, ok := c.(*divergence); ok && d.agents[agent] != nil {
			return d.agents[agent].calls[0].id
		}
	}
	return ""
}

// SweepEvery makes the pass sweep every n events, until the test ends
// (tests only).
func SweepEvery(t interface{ Cleanup(func()) }, n int64) {
	was := sweepEvery
	sweepEvery = n
	t.Cleanup(func() { sweepEvery = was })
}

// AgentLookups is how many calls, refusals and proxy refusals
// denial_adaptation, tool_escalation and plan_divergence hold of agent
// for their windows (tests only).
func AgentLookups(p *Pass, agent string) int {
	n := 0
	for _, c := range p.corr {
		switch c := c.(type) {
		case *adaptation:
			if st := c.agents[agent]; st != nil {
				n += len(st.calls.order) + len(st.denials) + len(st.byCall) + len(st.lastOf) + len(st.byPath)
			}
		case *escalation:
			if st := c.agents[agent]; st != nil {
				n += len(st.calls.order) + len(st.refused) + len(st.byKey) + len(st.proxied)
			}
		case *divergence:
			if st := c.agents[agent]; st != nil {
				n += len(st.calls)
			}
		}
	}
	return n
}

// WindowEvents is how many events the counting rules' windows hold of
// the group key (tests only).
func WindowEvents(p *Pass, key string) int {
	n := 0
	for _, c := range p.corr {
		if w, ok := c.(*windowCount); ok && w.groups[key] != nil {
			n += len(w.groups[key].q)
		}
	}
	return n
}

// SequenceHeld is how many step events the ordered sequences hold, not
// yet in a final sequence (tests only).
func SequenceHeld(p *Pass) int {
	n := 0
	for _, c := range p.corr {
		if s, ok := c.(*sequence); ok {
			for _, sg := range s.groups {
				for _, hs := range sg.steps {
					n += len(hs)
				}
			}
		}
	}
	return n
}

// IntentPending is how many actions intent_mismatch holds for agent's
// next summary (tests only).
func IntentPending(p *Pass, agent string) int {
	for _, c := range p.corr {
		if x, ok := c.(*intent); ok && x.agents[agent] != nil {
			return len(x.agents[agent].pending)
		}
	}
	return 0
}

// ThinAt makes the pass thin a capability's uses from n held, until the
// test ends (tests only).
func ThinAt(t interface{ Cleanup(func()) }, n int) {
	was := thinAt
	thinAt = n
	t.Cleanup(func() { thinAt = was })
}

// HeldUses is how many uses the pass holds of agent's capabilities now
// (tests only).
func HeldUses(p *Pass, agent string) int {
	n := 0
	for _, c := range p.caps.caps[agent] {
		n += c.Making()
	}
	return n
}

// OpenSends is how many sends data_exfiltration holds in episodes still
// open (tests only).
func OpenSends(p *Pass) int {
	n := 0
	for _, c := range p.corr {
		if d, ok := c.(*dataOut); ok {
			for _, ss := range d.sends {
				if ss.open != nil {
					n += ss.open.hits.len()
				}
			}
		}
	}
	return n
}

// CorrelatorsCollected watches p's correlators: the count it returns is
// how many of them the collector has freed since (tests only).
func CorrelatorsCollected(p *Pass) func() int {
	var n atomic.Int64
	for _, c := range p.corr {
		// every correlator is a pointer to its state
		at := (*byte)(reflect.ValueOf(c).UnsafePointer())
		runtime.AddCleanup(at, func(n *atomic.Int64) { n.Add(1) }, &n)
	}
	return func() int { return int(n.Load()) }
}

// SetRateAside makes the rate rules of p set a closed window's hits aside
// once they hold more than after bytes in memory (tests only), and gives
// how many bytes each has set aside so far and a way to close their
// files.
func SetRateAside(p *Pass, after int) (written func() int64, closeFiles func()) {
	var rates []*rate
	for _, c := range p.corr {
		if r, ok := c.(*rate); ok {
			r.after = after
			rates = append(rates, r)
		}
	}
	written = func() int64 {
		var n int64
		for _, r := range rates {
			n += r.aside.size
		}
		return n
	}
	closeFiles = func() {
		for _, r := range rates {
			if r.aside.f != nil {
				r.aside.f.Close()
			}
		}
	}
	return written, closeFiles
}
