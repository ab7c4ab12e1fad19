package attribution

import (
	"context"
	"fmt"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// SourceCoverage is how much of a source's evidence is tied to an agent.
type SourceCoverage struct {
	Source string `json:"source"`
	Total  int64  `json:"total"`
	// Attributable events carry a key attribution can use: a source IP,
	// a container, a pod or a credential. The rest cannot name an agent.
	Attributable int64 `json:"attributable"`
	Attributed   int64 `json:"attributed"`
	Ambiguous    int64 `json:"ambiguous"`
	Unattributed int64 `json:"unattributed"`
}

// Percent is the share of attributable events attributed.
func (c SourceCoverage) Percent() float64 {
	if c.Attributable == 0 {
		return 0
	}
	return 100 * float64(c.Attributed) / float64(c.Attributable)
}

// Coverage counts, for the proxy, sensor and audit-log sources, the events attribution
// could concern and how many of them it tied to an agent.
func Coverage(ctx context.Context, st evidence.Reader) ([]SourceCoverage, error) {
	c := st.Counts()
	var out []SourceCoverage
	for _, src := range []string{evidence.SourceProxy, evidence.SourceSensor, evidence.SourceAudit} {
		total := c.Fields["source"][src]
		if total == 0 {
			continue
		}
		q := evidence.Term("source", src)
		via, err := st.Facet(ctx, q, time.Time{}, time.Time{}, "attributed_via", 20)
		if err != nil {
			return nil, err
		}
		keyless, err := st.Search(ctx, evidence.Request{Query: evidence.And(q, evidence.Not(evidence.Or(evidence.Exists("src_ip"), evidence.Exists("container"), evidence.Exists("pod"), evidence.Exists("credential")))), Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("coverage of %s: %w", src, err)
		}
		sc := SourceCoverage{Source: src, Total: total, Attributable: total - int64(keyless.Total)}
		for _, v := range via {
			if v.Value == "ambiguous" {
				sc.Ambiguous += v.Count
			} else {
				sc.Attributed += v.Count
			}
		}
		sc.Unattributed = total - sc.Attributed - sc.Ambiguous
		out = append(out, sc)
	}
	return out, nil
}
