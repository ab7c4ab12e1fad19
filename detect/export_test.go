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
