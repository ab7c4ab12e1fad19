package report

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

// FindingWhy says why the controls let a finding's events happen: the
// decisions that allowed them and the gaps no control covered.
type FindingWhy struct {
	Finding  string    `json:"finding"`
	Detector string    `json:"detector"`
	Severity string    `json:"severity"`
	Lines    []WhyLine `json:"lines"`
	// Read is how many of the finding's events were looked at (capped).
	Read int `json:"read"`
}

// WhyLine is one evidence-backed reason: Kind "allow" (a decision let it
// through) or "gap" (nothing decided: no ledger record, or activity after
// the session ended).
type WhyLine struct {
	Kind   string   `json:"kind"`
	Text   string   `json:"text"`
	Count  int      `json:"count"`
	Events []string `json:"events"`
}

// Bounds of the explanation: events read per finding, and how close a
// ledger record must be to count as a proxy or sensor event's counterpart.
const (
	maxWhyEvents      = 500
	counterpartWithin = 10 * time.Second
)

type whyGroup struct {
	line  WhyLine
	first time.Time
	order int
}

// explainFinding walks the finding's events in time order.
func explainFinding(ctx context.Context, st Reader, f detect.Finding, sessions []evidence.Event) (FindingWhy, error) {
	w := FindingWhy{Finding: f.ID, Detector: f.Detector, Severity: f.Severity, Lines: []WhyLine{}}
	ends, err := st.Search(ctx, evidence.Request{Query: evidence.And(evidence.Term("agent", f.Agent), evidence.Term("kind", evidence.KindSessionEnd)), Sort: evidence.SortTime, Limit: incident.MaxSubjectSessions})
	if err != nil {
		return w, fmt.Errorf("session ends of %s: %w", f.Agent, err)
	}
	var evs []evidence.Event
	for _, id := range f.Events[:min(len(f.Events), maxWhyEvents)] {
		ev, err := st.Get(ctx, id)
		if errors.Is(err, evidence.ErrNotFound) {
			continue
		}
		if err != nil {
			return w, err
		}
		evs = append(evs, ev)
	}
	w.Read = len(evs)
	sort.Slice(evs, func(i, j int) bool {
		if !evs[i].Time.Equal(evs[j].Time) {
			return evs[i].Time.Before(evs[j].Time)
		}
		return evs[i].ID < evs[j].ID
	})
	groups := map[string]*whyGroup{}
	add := func(key, kind, text string, t time.Time, ids ...string) {
		g := groups[key]
		if g == nil {
			g = &whyGroup{line: WhyLine{Kind: kind, Text: text, Events: []string{}}, first: t, order: len(groups)}
			groups[key] = g
		}
		g.line.Count++
		for _, id := range ids {
			if len(g.line.Events) < maxReportIDs && !slices.Contains(g.line.Events, id) {
				g.line.Events = append(g.line.Events, id)
			}
		}
	}
	decisions := map[string][]evidence.Event{}
	cited := map[string]bool{}
	for _, ev := range evs {
		switch {
		case ev.Source == evidence.SourceLedger && ev.CallID != "" && ev.Kind != evidence.KindPolicyDecision:
			ds, ok := decisions[ev.CallID]
			if !ok {
				h, err := st.Search(ctx, evidence.Request{Query: evidence.And(evidence.Term("agent", f.Agent), evidence.Term("call_id", ev.CallID), evidence.Term("kind", evidence.KindPolicyDecision)), Limit: 10})
				if err != nil {
					return w, fmt.Errorf("decisions of %s: %w", ev.CallID, err)
				}
				ds = h.Events
				decisions[ev.CallID] = ds
			}
			for _, d := range ds {
				if d.Decision == evidence.DecisionAllow && !cited[d.ID] {
					cited[d.ID] = true
					what := ev.Tool
					if what == "" {
						what = ev.Kind
					}
					add("policy|"+d.Policy+"|"+what, "allow", fmt.Sprintf("policy %s allowed %s: %s", orNone(d.Policy), what, d.Message), ev.Time, d.ID)
				}
			}
		case ev.Decision == evidence.DecisionAllow && ev.Source == evidence.SourceProxy:
			add("proxy|"+ev.DstHost+"|"+ev.User, "allow", proxyAllowText(ev, sessions), ev.Time, ev.ID)
		case ev.Decision == evidence.DecisionAllow:
			add("allow|"+ev.Kind+"|"+ev.Policy, "allow", fmt.Sprintf("%s allowed by policy %s: %s", ev.Kind, orNone(ev.Policy), ev.Message), ev.Time, ev.ID)
		}
		if ev.Source != evidence.SourceProxy && ev.Source != evidence.SourceSensor {
			continue
		}
		if end, ok := endedBefore(ev, sessions, ends.Events); ok {
			add("after|"+end.ID, "gap", fmt.Sprintf("activity from the sandbox after session %s ended (%s at %s): the session's end stopped neither its processes, its network nor its credentials", end.Session, orNone(end.Status), incident.Stamp(end.Time)), ev.Time, end.ID, ev.ID)
			continue
		}
		h, err := st.Search(ctx, evidence.Request{Query: evidence.And(evidence.Term("agent", f.Agent), evidence.Term("source", evidence.SourceLedger)),
			Since: ev.Time.Add(-counterpartWithin), Until: ev.Time.Add(counterpartWithin), Limit: 1})
		if err != nil {
			return w, fmt.Errorf("ledger near %s: %w", ev.ID, err)
		}
		if h.Total == 0 {
			add("noledger|"+ev.Source, "gap", fmt.Sprintf("%s events with no ledger record of %s within %s: the tool gateway never saw them, so no policy decided them", ev.Source, f.Agent, counterpartWithin), ev.Time, ev.ID)
		}
	}
	list := make([]*whyGroup, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].line.Kind != list[j].line.Kind {
			return list[i].line.Kind == "allow"
		}
		return list[i].order < list[j].order
	})
	for _, g := range list {
		w.Lines = append(w.Lines, g.line)
	}
	return w, nil
}

// proxyAllowText says what the proxy let through and whether the host was
// on the egress allowlist of the agent's sessions.
func proxyAllowText(ev evidence.Event, sessions []evidence.Event) string {
	who := ""
	if ev.User != "" {
		who = " as " + ev.User
	}
	host := ev.DstHost
	if host == "" {
		host = ev.DstIP
	}
	s := fmt.Sprintf("the proxy allowed requests to %s%s", orNone(host), who)
	for _, sess := range sessions {
		for _, a := range sess.EgressAllowlist {
			if hostAllowed(host, a) {
				return s + fmt.Sprintf(": %s is on the egress allowlist of session %s (%s)", host, sess.Session, a)
			}
		}
	}
	return s + ": not on the egress allowlist of any of its sessions"
}

// hostAllowed matches a host against an allowlist entry: exact, or a
// "*.domain" / ".domain" suffix.
func hostAllowed(host, entry string) bool {
	if host == "" || entry == "" {
		return false
	}
	if strings.EqualFold(host, entry) {
		return true
	}
	suffix := strings.TrimPrefix(entry, "*")
	return strings.HasPrefix(suffix, ".") && strings.HasSuffix(strings.ToLower(host), strings.ToLower(suffix))
}

// endedBefore returns the latest session end before ev when no session of
// the agent was open at ev's time.
func endedBefore(ev evidence.Event, sessions, ends []evidence.Event) (evidence.Event, bool) {
	endOf := map[string]time.Time{}
	for _, e := range ends {
		endOf[e.Session] = e.Time
	}
	for _, s := range sessions {
		end, ok := endOf[s.Session]
		if !ev.Time.Before(s.Time) && (!ok || !ev.Time.After(end)) {
			return evidence.Event{}, false
		}
	}
	var last evidence.Event
	found := false
	for _, e := range ends {
		if e.Time.Before(ev.Time) && (!found || e.Time.After(last.Time)) {
			last, found = e, true
		}
	}
	return last, found
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
