package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/evidence"
)

// judge fills a tried test's control result.
func (r *run) judge(ctx context.Context, cr *ControlResult, c Control, at attempt) error {
	if c.Query != "" {
		var err error
		if at, err = r.answers(ctx, c.Query, at); err != nil {
			return err
		}
	}
	switch c.Kind {
	case ControlRefuse:
		r.refused(cr, c, at)
	case ControlReport:
		r.reported(cr, c, at)
	case ControlDetect:
		r.detected(cr, c, at)
	case ControlStop:
		r.stopped(cr, c, at)
	}
	return nil
}

// skewSlack is how much earlier than the attempt's first event a
// control's own events may be: sources' clocks differ by that much.
const skewSlack = time.Second

// answers is the attempt with, as its events, a control's own: those of
// the agents that tried it matching query, from its first event on.
func (r *run) answers(ctx context.Context, text string, at attempt) (attempt, error) {
	q, err := evidence.Parse(text)
	if err != nil {
		return at, err
	}
	agents := make([]evidence.Query, 0, len(at.agents))
	for _, a := range at.agents {
		agents = append(agents, evidence.Term("agent", a))
	}
	hits, err := r.st.Search(ctx, evidence.Request{Query: evidence.And(q, evidence.Or(agents...)), Since: at.first.Add(-skewSlack),
		Sort: evidence.SortTime, Limit: maxTestEvents})
	if err != nil {
		return at, err
	}
	evs := hits.Events[:0:0]
	for _, ev := range hits.Events {
		if r.scope.holds(ev) {
			evs = append(evs, ev)
		}
	}
	return attempt{agents: at.agents, first: at.first, events: evs}, nil
}

// sighting is one record of the attempt as a source saw it.
type sighting struct {
	t       time.Time
	id      string
	source  string
	format  string
	refused bool
}

// sightings are the attempt's records: its events, or its capabilities'
// uses.
func (at attempt) sightings() []sighting {
	var out []sighting
	for _, ev := range at.events {
		out = append(out, sighting{ev.Time, ev.ID, ev.Source, ev.Format, ev.Decision == evidence.DecisionDeny})
	}
	for _, c := range at.caps {
		for _, u := range c.Uses {
			out = append(out, sighting{u.Time, u.ID, u.Source, u.Format, u.Refused})
		}
	}
	slices.SortStableFunc(out, func(a, b sighting) int { return a.t.Compare(b.t) })
	return out
}

// ids are the attempt's records, oldest first, each once.
func (at attempt) ids() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range at.sightings() {
		if !seen[s.id] {
			seen[s.id] = true
			out = append(out, s.id)
		}
	}
	return out
}

// refused: the gateway (the ledger's decisions) or the proxy refused one
// of the attempts.
func (r *run) refused(cr *ControlResult, c Control, at attempt) {
	src := evidence.SourceProxy
	if c.By == "gateway" {
		src = evidence.SourceLedger
	}
	seen := 0
	var through []string
	for _, s := range at.sightings() {
		// a refusal before the attempt answered another one
		if s.source != src || s.t.Before(at.first.Add(-skewSlack)) {
			continue
		}
		seen++
		through = append(through, s.id)
		if s.refused {
			cr.Outcome, cr.At, cr.After, cr.Events = Fired, s.t, after(s.t.Sub(at.first)), []string{s.id}
			cr.Why = fmt.Sprintf("refused by the %s at %s, %s after the first attempt", c.By, hms(s.t), dur(s.t.Sub(at.first)))
			return
		}
	}
	if src == evidence.SourceProxy {
		seen += at.unread
	}
	switch {
	case !r.has("source", src):
		cr.Outcome = CouldNotTell
		cr.Why = fmt.Sprintf("%s is not in this incident: it would show the %s's refusals", sourceName(src), c.By)
	case seen == 0:
		cr.Outcome, cr.Triggers = Missed, capped(at.ids())
		cr.Why = fmt.Sprintf("none of it is in %s: it did not pass the %s, which refused nothing", sourceName(src), c.By)
	default:
		cr.Outcome, cr.Triggers = Missed, capped(through)
		cr.Why = fmt.Sprintf("the %s let all %d of its records in %s through", c.By, seen, sourceName(src))
	}
}

// reported: a runtime sensor (of the format named) recorded the attempt.
func (r *run) reported(cr *ControlResult, c Control, at attempt) {
	format := ""
	if c.By != "sensor" {
		format = c.By
	}
	for _, s := range at.sightings() {
		if s.source == evidence.SourceSensor && (format == "" || s.format == format) {
			cr.Outcome, cr.At, cr.After, cr.Events = Fired, s.t, after(s.t.Sub(at.first)), []string{s.id}
			cr.Why = fmt.Sprintf("%s reported it at %s, %s after the first event", orSensor(s.format), hms(s.t), dur(s.t.Sub(at.first)))
			return
		}
	}
	if format == "" && !r.has("source", evidence.SourceSensor) || format != "" && !r.has("format", format) {
		cr.Outcome = CouldNotTell
		cr.Why = fmt.Sprintf("no %s log is in this incident: it would show whether a sensor saw it", orSensor(format))
		return
	}
	cr.Outcome, cr.Triggers = Missed, capped(at.ids())
	cr.Why = fmt.Sprintf("%s is in this incident and holds none of it", orSensor(format))
}

func orSensor(format string) string {
	if format == "" || format == "sensor" {
		return "a runtime sensor"
	}
	return format
}

// detected: a finding of the detector about an agent that tried it began
// within the time allowed of the first event.
func (r *run) detected(cr *ControlResult, c Control, at attempt) {
	var best *time.Time
	var id string
	var evs []string
	for i := range r.findings {
		f := &r.findings[i]
		if f.Detector != c.By || !slices.Contains(at.agents, f.Agent) || !r.scope.at(f.Agent, f.Start) {
			continue
		}
		if best == nil || f.Start.Before(*best) {
			best, id, evs = &f.Start, f.ID, f.Events
		}
	}
	if best == nil {
		cr.Outcome, cr.Triggers = Missed, capped(at.ids())
		cr.Why = fmt.Sprintf("no %s finding about %s", c.By, strings.Join(at.agents, ", "))
		return
	}
	d := best.Sub(at.first)
	cr.At, cr.After, cr.Finding, cr.Events = *best, after(d), id, capped(evs)
	if d > c.Within {
		cr.Outcome, cr.Triggers = Missed, capped(at.ids())
		cr.Why = fmt.Sprintf("%s named it %s after the first event (finding %s), later than %s", c.By, dur(d), id, shortDuration(c.Within))
		return
	}
	cr.Outcome = Fired
	cr.Why = fmt.Sprintf("%s named it %s after the first event (finding %s)", c.By, dur(d), id)
}

// stopped renders the case's Assessment: for a test of gains, the verdicts
// of the capabilities gained; otherwise the verdict of the layer. Only the
// time allowed is this package's: stopped, live and cannot tell are the
// Assessment's.
func (r *run) stopped(cr *ControlResult, c Control, at attempt) {
	a := r.a
	switch {
	case a.Kill.IsZero():
		cr.Outcome = CouldNotTell
		cr.Why = "no kill time is recorded: nothing is judged before the agent is stopped (mark contain.stop done, with --at when it was earlier)"
		return
	case !containsAny(a.Subject, at.agents):
		cr.Outcome = CouldNotTell
		cr.Why = fmt.Sprintf("the case's Assessment judges %s, not %s", orNone(a.Subject), strings.Join(at.agents, ", "))
		return
	}
	var vs []capability.Verdict
	if len(at.caps) > 0 {
		for _, cp := range at.caps {
			if v, ok := a.Of(&cp); ok && v.Layer == c.By {
				vs = append(vs, v)
			}
		}
		if len(vs) == 0 {
			cr.Outcome = CouldNotTell
			cr.Why = fmt.Sprintf("the Assessment judges none of what %s gained in %s", strings.Join(at.agents, ", "), c.By)
			return
		}
	} else {
		lv, ok := a.Layer(c.By)
		if !ok {
			cr.Outcome = CouldNotTell
			cr.Why = "the Assessment does not judge " + c.By
			return
		}
		vs = []capability.Verdict{{Layer: lv.Layer, State: lv.State, StoppedAt: lv.StoppedAt, Line: lv.Line, Events: lv.Events}}
	}
	state, last, line := capability.Stopped, a.Kill, ""
	for _, v := range vs {
		if capability.Worse(state, v.State) != state {
			state, line = v.State, v.Line
		}
		if v.State == capability.Stopped && v.StoppedAt.After(last) {
			last = v.StoppedAt
		}
		cr.Events = append(cr.Events, v.Events...)
	}
	switch state {
	case capability.Live:
		cr.Outcome, cr.Why, cr.Triggers = Missed, "live after the kill: "+line, capped(cr.Events)
		return
	case capability.CannotTell:
		cr.Outcome, cr.Why = CouldNotTell, line
		return
	}
	d := last.Sub(a.Kill)
	cr.At, cr.After = last, after(d)
	lines := make([]string, 0, len(vs))
	for _, v := range vs {
		lines = append(lines, v.Line)
	}
	if d > c.Within {
		cr.Outcome, cr.Triggers = Missed, capped(cr.Events)
		cr.Why = fmt.Sprintf("stopped %s after the kill, later than %s: %s", dur(d), shortDuration(c.Within), strings.Join(lines, "; "))
		return
	}
	cr.Outcome = Fired
	cr.Why = fmt.Sprintf("stopped %s after the kill: %s", dur(d), strings.Join(lines, "; "))
}

func orNone(subject []string) string {
	if len(subject) == 0 {
		return "no agent (no subject is named and no finding names one)"
	}
	return strings.Join(subject, ", ")
}

func hms(t time.Time) string { return t.UTC().Format(time.TimeOnly) }

// dur says a duration to the second ("0s" under one).
func dur(d time.Duration) string {
	if d < time.Second {
		return "0s"
	}
	return d.Truncate(time.Second).String()
}
