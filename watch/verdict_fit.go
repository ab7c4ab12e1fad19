package watch

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cordon-ir/cordon/detect"
)

// A verdict lists the agent's findings and acquired capabilities, and
// every capability the policy refuses is a reason: an agent that reached
// ten thousand hosts has ten thousand data_out capabilities, and with a
// kill time the Assessment judges each one. On the bench generator's
// incident at 300,000 events the busiest agent's reply was 753 KB with a
// kill time (1,100 capabilities; its Assessment alone 381 KB); at a
// million it passes the server's max_payload (1 MiB unless set), the
// reply is refused, and the gateway hears nothing about exactly the agent
// it most needs to hear about. An agent could do that on purpose.
//
// So a verdict lists at most maxVerdictFindings findings, maxVerdictCaps
// capabilities (those that decided first, then the others held, then the
// rest) and maxVerdictReasons reasons, and counts what it left out
// (finding_count, capability_count, reason_count). What it decides
// (recommendation, clauses, rules) is decided on them all, before the
// lists are cut. A reply still too large for the server (a request's
// Assessment, a small max_payload) is cut further by fitVerdict.
const (
	maxVerdictFindings = 100
	maxVerdictCaps     = 100
	maxVerdictReasons  = 100
)

// trimVerdict cuts out's lists to their bounds, each in its order:
// the most severe findings, and the capabilities whose clause decided
// (decided, by index), then those held, then the rest.
func trimVerdict(out *Verdict, decided map[int]bool) {
	if n := len(out.Findings); n > maxVerdictFindings {
		keep := firstBy(n, maxVerdictFindings, func(i int) int { return -detect.SeverityRank(out.Findings[i].Severity) })
		fs := make([]VerdictFinding, 0, len(keep))
		for _, i := range keep {
			fs = append(fs, out.Findings[i])
		}
		out.Findings, out.FindingCount = fs, n
	}
	if n := len(out.Capabilities); n > maxVerdictCaps {
		keep := firstBy(n, maxVerdictCaps, func(i int) int {
			switch {
			case decided[i]:
				return 0
			case out.Capabilities[i].Held:
				return 1
			}
			return 2
		})
		caps := make([]VerdictCap, 0, len(keep))
		for _, i := range keep {
			caps = append(caps, out.Capabilities[i])
		}
		out.Capabilities, out.CapabilityCount = caps, n
	}
	cutReasons(out, maxVerdictReasons)
}

// firstBy is the indexes, in order, of the keep of 0..n-1 that come
// first by rank (lower first; ties by index).
func firstBy(n, keep int, rank func(int) int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rank(a) - rank(b) })
	order = order[:min(keep, n)]
	slices.Sort(order)
	return order
}

// cutReasons keeps the first keep of out's reasons, counting them all.
func cutReasons(out *Verdict, keep int) {
	if len(out.Reasons) <= keep {
		return
	}
	out.ReasonCount = max(out.ReasonCount, len(out.Reasons))
	out.Reasons = out.Reasons[:keep:keep]
}

// fitVerdict is out cut so that its encoding is at most limit bytes,
// and that encoding: first its Assessment given as the agent's Standing
// in it, then its lists halved together until it fits (one reason kept),
// then its rank line. What it decided is never cut.
func fitVerdict(out Verdict, limit int) (Verdict, []byte, error) {
	b, err := json.Marshal(out)
	if err != nil || len(b) <= limit {
		return out, b, err
	}
	if a := out.Assessment; a != nil {
		out.Assessment = nil
		if st, ok := a.Standing(out.Agent, requestKill); ok && out.Standing == nil {
			out.Standing = &st
		}
		// first: the lists are cut from their ends
		out.Reasons = append([]string{fmt.Sprintf("the Assessment at the request's kill is left out: the reply would be %d bytes, more than the server's max_payload of %d (cordon subject gives it whole)", len(b), limit)}, out.Reasons...)
		if out.ReasonCount > 0 {
			out.ReasonCount++
		}
	}
	for {
		if b, err = json.Marshal(out); err != nil || len(b) <= limit {
			return out, b, err
		}
		if len(out.Capabilities)+len(out.Findings)+len(out.Evidence)+len(out.Reasons) > 1 {
			// every list halved at once: none is emptied for the others
			if n := len(out.Capabilities); n > 0 {
				out.CapabilityCount = max(out.CapabilityCount, n)
				out.Capabilities = out.Capabilities[:n/2]
			}
			if n := len(out.Findings); n > 0 {
				out.FindingCount = max(out.FindingCount, n)
				out.Findings = out.Findings[:n/2]
			}
			out.Evidence = out.Evidence[:len(out.Evidence)/2]
			cutReasons(&out, max(len(out.Reasons)/2, 1))
			continue
		}
		if out.Rank == nil {
			return out, nil, fmt.Errorf("verdict for %s is %d bytes with every list cut, more than the server's max_payload of %d", out.Agent, len(b), limit)
		}
		out.Rank = nil
	}
}
