package detect

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
func FindingsAfresh(p *Pass) []Finding {
	for i, c := range p.corr {
		switch c := c.(type) {
		case *adaptation:
			c.made = map[string]madeOf{}
		case *dataOut:
			c.made = map[string]madeOf{}
		case *divergence:
			for _, st := range c.agents {
				st.changed, st.marks, st.found = 0, nil, nil
			}
		}
		p.changed[i] = true
	}
	return p.Findings()
}

// MarkEveryCall makes plan-divergence keep a mark at every call it can
// resume from, until the test ends (tests only).
func MarkEveryCall(t interface{ Cleanup(func()) }) {
	was := markEvery
	markEvery = 1
	t.Cleanup(func() { markEvery = was })
}
