package report

import (
	"context"
	"errors"
	"github.com/cordon-ir/cordon/capability"
	"net/netip"
	"slices"
	"sort"
	"time"

	catalogue "github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

// Kinds of indicator.
const (
	IndicatorDomain     = "domain"     // a host its data went to
	IndicatorIP         = "ip"         // an address it went to, or acted from outside every sandbox
	IndicatorCredential = "credential" // a credential id (never the secret)
	IndicatorFile       = "file"       // a credential file, or a file it left to run later
	IndicatorProcess    = "process"    // a process it left running
	IndicatorJob        = "job"        // work it queued elsewhere
	IndicatorSchedule   = "schedule"   // a scheduler entry it wrote
)

// Indicator is one value a responder hands to the tools that block, hunt
// or alert: where it was seen, by which agents, first and last, and which
// findings name it.
type Indicator struct {
	Kind   string   `json:"kind"`
	Value  string   `json:"value"`
	Agents []string `json:"agents"`
	// Origin: "granted" (the agent's own) or "acquired" (anything else).
	Origin capability.Origin `json:"origin"`
	First  time.Time         `json:"first_seen,omitzero"`
	Last   time.Time         `json:"last_seen,omitzero"`
	Uses   int               `json:"uses"`
	// Events are its evidence (the acquisition, then the uses); Findings
	// the findings whose evidence includes any of them.
	Events   []string `json:"events"`
	Findings []string `json:"findings,omitempty"`
	BytesOut int64    `json:"bytes_out,omitempty"`
	How      string   `json:"how"`
	// Denied counts the tries the proxy or the gateway refused; Outcome
	// is "denied" for a destination every try at which was refused: an
	// agent's intent, not a place its data went.
	Denied  int    `json:"denied,omitempty"`
	Outcome string `json:"outcome,omitempty"`
}

// Indicators builds the indicator register of the case from the agents'
// capability sets and the findings: one entry per kind and value, the most
// worrying first (acquired before granted, named by a finding, then by
// time).
func Indicators(ctx context.Context, ws *incident.Workspace) ([]Indicator, error) {
	findings, err := ws.CachedFindings(ctx)
	if err != nil {
		return nil, err
	}
	caps, err := ws.Capabilities(ctx)
	if err != nil {
		return nil, err
	}
	namedBy := map[string][]string{} // event id -> finding ids
	for _, f := range findings {
		for _, id := range f.Events {
			namedBy[id] = append(namedBy[id], f.ID)
		}
	}
	byKey := map[[2]string]*Indicator{}
	var order [][2]string
	for _, agent := range caps.Agents() {
		for _, c := range caps.For(agent) {
			kind, ok := indicatorKind(c)
			if !ok {
				continue
			}
			key := [2]string{kind, c.Value}
			in := byKey[key]
			if in == nil {
				in = &Indicator{Kind: kind, Value: c.Value, Origin: c.Origin, How: c.How}
				byKey[key] = in
				order = append(order, key)
			}
			mergeCapability(in, c, namedBy)
		}
	}
	if err := deniedDestinations(ctx, ws, byKey, &order, namedBy); err != nil {
		return nil, err
	}
	out := make([]Indicator, 0, len(order))
	for _, k := range order {
		in := byKey[k]
		sort.Strings(in.Agents)
		sort.Strings(in.Findings)
		if in.First.IsZero() {
			// Never used, only acquired (a file read): seen when acquired.
			if err := acquiredSpan(ctx, ws, in); err != nil {
				return nil, err
			}
		}
		out = append(out, *in)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.Origin == capability.Acquired) != (b.Origin == capability.Acquired) {
			return a.Origin == capability.Acquired
		}
		if (len(a.Findings) > 0) != (len(b.Findings) > 0) {
			return len(a.Findings) > 0
		}
		return a.First.Before(b.First)
	})
	return out, nil
}

// RedactedIndicators is Indicators as an output shows them: redacted
// unless opts say Unredacted (a process's command line can hold a secret).
func RedactedIndicators(ctx context.Context, ws *incident.Workspace, opts ...Option) ([]Indicator, Redaction, error) {
	ins, err := Indicators(ctx, ws)
	if err != nil {
		return nil, Redaction{}, err
	}
	return ins, redactAll(ws, optionsOf(opts), &ins), nil
}

// indicatorKind maps a capability to the kind of indicator it is. An
// agent's own sandbox is not one: it is internal, and known.
func indicatorKind(c capability.Capability) (string, bool) {
	switch c.Kind {
	case capability.DataOut:
		if _, err := netip.ParseAddr(c.Value); err == nil {
			return IndicatorIP, true
		}
		return IndicatorDomain, true
	case capability.Place:
		if c.Origin != capability.Acquired {
			return "", false
		}
		return IndicatorIP, true
	case capability.Credential:
		if catalogue.IsPath(c.Value) {
			return IndicatorFile, true
		}
		return IndicatorCredential, true
	case capability.Persisted:
		return IndicatorFile, true
	case capability.Process:
		return IndicatorProcess, true
	case capability.Job:
		return IndicatorJob, true
	case capability.Schedule:
		return IndicatorSchedule, true
	}
	return "", false
}

// acquiredSpan sets an indicator's first and last sighting from the times
// of its evidence events.
func acquiredSpan(ctx context.Context, ws *incident.Workspace, in *Indicator) error {
	for _, id := range in.Events {
		ev, err := ws.Get(ctx, id)
		if errors.Is(err, evidence.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		t := ev.Time.UTC()
		if in.First.IsZero() || t.Before(in.First) {
			in.First = t
		}
		if t.After(in.Last) {
			in.Last = t
		}
	}
	return nil
}

func mergeCapability(in *Indicator, c capability.Capability, namedBy map[string][]string) {
	if !slices.Contains(in.Agents, c.Agent) && c.Agent != "" {
		in.Agents = append(in.Agents, c.Agent)
	}
	if c.Origin == capability.Acquired {
		in.Origin, in.How = capability.Acquired, c.How
	}
	in.BytesOut += c.BytesOut
	ids := slices.Clone(c.Acquired)
	for _, u := range c.Uses {
		ids = append(ids, u.ID)
		if !u.Refused {
			in.Uses++
		}
		if in.First.IsZero() || u.Time.Before(in.First) {
			in.First = u.Time.UTC()
		}
		if u.Time.After(in.Last) {
			in.Last = u.Time.UTC()
		}
	}
	for _, id := range ids {
		if !slices.Contains(in.Events, id) {
			in.Events = append(in.Events, id)
		}
		for _, f := range namedBy[id] {
			if !slices.Contains(in.Findings, f) {
				in.Findings = append(in.Findings, f)
			}
		}
	}
}

// maxDeniedEvents bounds the denied requests the register reads.
const maxDeniedEvents = 100_000

// deniedDestinations adds every destination an agent tried and was
// refused: a denied try is evidence of intent (where it meant to send, what
// it probed), which a SIEM wants to hunt and block as much as where data
// went. A destination also reached keeps its entry and counts the denials.
func deniedDestinations(ctx context.Context, ws *incident.Workspace, byKey map[[2]string]*Indicator, order *[][2]string, namedBy map[string][]string) error {
	q := evidence.And(evidence.Term("decision", evidence.DecisionDeny), evidence.Terms("kind", evidence.KindNetRequest, evidence.KindNetConnect, evidence.KindDNSQuery))
	n := 0
	return ws.Each(ctx, q, func(ev evidence.Event) error {
		if n++; n > maxDeniedEvents || ev.Agent == "" {
			return nil
		}
		host, kind := ev.DstHost, IndicatorDomain
		if host == "" {
			host, kind = ev.DstIP, IndicatorIP
		}
		if host == "" {
			return nil
		}
		if _, err := netip.ParseAddr(host); err == nil {
			kind = IndicatorIP
		}
		key := [2]string{kind, host}
		in := byKey[key]
		if in == nil {
			in = &Indicator{Kind: kind, Value: host, Origin: capability.Acquired, Outcome: "denied", How: "tried, and refused by " + ev.Source}
			byKey[key] = in
			*order = append(*order, key)
		}
		in.Denied++
		if !slices.Contains(in.Agents, ev.Agent) {
			in.Agents = append(in.Agents, ev.Agent)
		}
		if in.Outcome == "denied" {
			if in.First.IsZero() || ev.Time.Before(in.First) {
				in.First = ev.Time.UTC()
			}
			if ev.Time.After(in.Last) {
				in.Last = ev.Time.UTC()
			}
		}
		if len(in.Events) < maxReportIDs*5 && !slices.Contains(in.Events, ev.ID) {
			in.Events = append(in.Events, ev.ID)
		}
		for _, f := range namedBy[ev.ID] {
			if !slices.Contains(in.Findings, f) {
				in.Findings = append(in.Findings, f)
			}
		}
		return nil
	})
}
