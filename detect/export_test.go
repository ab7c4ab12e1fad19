package detect

import "slices"

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
			made := c.made
			c.made = map[string]madeOf{}
			restore = append(restore, func() { c.made = made })
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
