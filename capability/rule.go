package capability

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// State is the answer to "is it stopped?".
type State string

// The answers. Nothing else is said of a capability: a use after the kill
// makes it live whatever text says it ended, and where no source could
// have seen a use, it is cannot tell, naming the source that would.
const (
	Stopped    State = "stopped"
	Live       State = "live"
	CannotTell State = "cannot tell"
)

// Worse is the more alarming of two answers: live, then cannot tell, then
// stopped.
func Worse(a, b State) State {
	rank := func(s State) int {
		switch s {
		case Live:
			return 3
		case CannotTell:
			return 2
		case Stopped:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// Verdict is the rule's answer for one capability at one kill time.
type Verdict struct {
	Agent    string `json:"agent"`
	Kind     Kind   `json:"kind"`
	Value    string `json:"value"`
	Origin   Origin `json:"origin"`
	Owner    string `json:"owner,omitempty"`
	CredKind string `json:"cred_kind,omitempty"`
	How      string `json:"how"`
	// Layer is the kill-switch layer that stops it.
	Layer string `json:"layer"`
	State State  `json:"state"`
	// StoppedAt is when it stopped (for Stopped): the kill, or its
	// authoritative end after the kill, or the end of a use in flight
	// across the kill, whichever is latest.
	StoppedAt time.Time `json:"stopped_at,omitzero"`
	// LiveFor is how long after the kill it was still live: to its end
	// when stopped, to its last use when live.
	LiveFor time.Duration `json:"live_for,omitempty"`
	// LastUse is its last use not refused that began after the kill;
	// UsesAfter counts them (at least, unless UsesExact).
	LastUse   *Use `json:"last_use,omitempty"`
	UsesAfter int  `json:"uses_after,omitempty"`
	UsesExact bool `json:"uses_exact,omitempty"`
	// InFlight is a use that began before the kill and ended after it.
	InFlight *Use `json:"in_flight,omitempty"`
	// End is the authoritative end that counts; Claims the ends only text
	// says, shown, never enough.
	End    *End  `json:"end,omitempty"`
	Claims []End `json:"claims,omitempty"`
	// Observer is the source that could see its uses, and Watermark its
	// last event; Missing names the source that would, when none could.
	Observer  string    `json:"observer,omitempty"`
	Watermark time.Time `json:"watermark,omitzero"`
	Missing   string    `json:"missing,omitempty"`
	Gap       *Gap      `json:"gap,omitempty"`
	// Line is the one line a responder reads.
	Line string `json:"line"`
	// Events are the ids that show it: the uses after the kill, the end.
	Events []string `json:"events,omitempty"`
}

// persists says a kind stays alive until something ends it: a process
// runs, a file stays written, a created workload runs, a job is queued.
func persists(k Kind) bool {
	return k == Process || k == Schedule || k == Persisted || k == Workload || k == Job
}

// maxEvents bounds the ids a verdict names.
const maxEvents = 20

// Judge applies the one rule to c for a kill at kill, on the evidence up
// to asOf (zero: all of it), with what each source reported in cov.
//
// A capability is stopped at the kill S iff a source able to observe its
// uses covered (S, now] with no gap, and no use that was not refused began
// after max(S, its authoritative end); now is that source's last event.
// A use that began before S and ended after it is in flight at the kill,
// not a use after it. One used after S and ended later is stopped at its
// end, live for the time between. A kind that stays alive until ended (a
// process, a written file, a created workload, a job) is live while
// nothing authoritative ended it. Otherwise it is live (the last use
// named) or cannot tell (the source that would see a use named).
func Judge(c *Capability, kill, asOf time.Time, cov *Coverage) Verdict {
	v := Verdict{Agent: c.Agent, Kind: c.Kind, Value: c.Value, Origin: c.Origin, Owner: c.Owner, CredKind: c.CredKind,
		How: c.How, Layer: LayerOf(c.Kind), StoppedAt: kill}
	inTime := func(t time.Time) bool { return asOf.IsZero() || !t.After(asOf) }
	for _, e := range c.Ends {
		if !inTime(e.At) {
			continue
		}
		if e.Authority == Authoritative && v.End == nil {
			e := e
			v.End = &e
		} else if e.Authority == Claimed {
			v.Claims = append(v.Claims, e)
		}
	}
	stop := kill
	if v.End != nil && v.End.At.After(kill) {
		stop = v.End.At
	}
	obs, missing := Observers(c)
	name := Describe(c)

	// uses after the kill, after the stop, and in flight across the kill
	var after, beyond []Use
	var open *Use
	for _, u := range c.Uses {
		if u.Refused || !inTime(u.Time) {
			continue
		}
		if u.Open && !u.Began().After(kill) {
			u := u
			open = &u
			continue
		}
		switch b := u.Began(); {
		case b.After(stop):
			beyond = append(beyond, u)
			after = append(after, u)
		case b.After(kill):
			after = append(after, u)
		case u.Time.After(kill) && (v.InFlight == nil || u.Time.After(v.InFlight.Time)):
			u := u
			v.InFlight = &u
		}
	}
	if len(after) > 0 {
		last := after[len(after)-1]
		v.LastUse = &last
		v.UsesAfter, v.UsesExact = c.countAfter(kill)
		v.UsesAfter = max(v.UsesAfter, len(after))
		room := maxEvents // the end and the use in flight are named whatever the uses
		if v.End != nil {
			room--
		}
		if v.InFlight != nil {
			room--
		}
		for _, u := range after[:min(len(after), room)] {
			v.Events = append(v.Events, u.ID)
		}
	}
	if v.End != nil {
		v.Events = append(v.Events, v.End.ID)
	}
	claimed := claimText(v.Claims)

	switch {
	case len(beyond) > 0:
		// used after the kill and after any end: live
		last := beyond[len(beyond)-1]
		v.State, v.LastUse = Live, &last
		v.LiveFor = last.Time.Sub(kill)
		v.Line = fmt.Sprintf("%s: live — used %s after the kill (%s)%s; last %s %s", name, count(v.UsesAfter, v.UsesExact),
			stamp(kill), fromText(c.Kind, after), hms(last.Time), fromOne(c.Kind, last))
		if v.End != nil {
			v.Line += fmt.Sprintf(", after %s %s (%s)", v.End.How, hms(v.End.At), v.End.By)
		} else {
			v.Line += ", and nothing its issuer recorded ended it"
		}
		if c.SkewMargin > 0 && last.Time.Sub(stop) < c.SkewMargin {
			v.Line += fmt.Sprintf(" — every such use is within the ±%s clock skew margin of the stop: it may have come before it", c.SkewMargin.Round(time.Millisecond))
		}
		v.Line += claimed
		return v
	case v.End != nil:
		v.State = Stopped
		v.StoppedAt = maxTime(stop, inFlightEnd(v.InFlight))
		switch {
		case v.End.At.After(kill):
			v.LiveFor = v.End.At.Sub(kill)
			v.Line = fmt.Sprintf("%s: stopped at %s (%s, %s), live for %s after the kill", name, hms(v.End.At), v.End.How, v.End.By, DurationText(v.LiveFor))
			if v.LastUse != nil {
				v.Line += fmt.Sprintf(" (last use %s %s)", hms(v.LastUse.Time), fromOne(c.Kind, *v.LastUse))
			}
		default:
			v.Line = fmt.Sprintf("%s: %s %s (%s), before the kill", name, v.End.How, hms(v.End.At), v.End.By)
		}
		v.Line += inFlightText(v.InFlight)
		v.Events = appendInFlight(v.Events, v.InFlight)
		return v
	case persists(c.Kind):
		// alive until something authoritative ends it
		if len(v.Claims) > 0 {
			v.State, v.Missing = CannotTell, missingFor(c, missing)
			v.Line = fmt.Sprintf("%s: cannot tell — only a claimed end%s; %s would record its end", name, claimed, v.Missing)
			return v
		}
		v.State = Live
		if len(obs) > 0 {
			v.Observer, v.Watermark = obs[0].Name, cov.WatermarkAsOf(obs[0], asOf)
		}
		v.Line = fmt.Sprintf("%s: live — nothing shows it ended", name)
		if !v.Watermark.IsZero() {
			v.Line += fmt.Sprintf(" (%s reported until %s)", v.Observer, hms(v.Watermark))
		}
		v.Events = append(v.Events, c.Acquired[:min(len(c.Acquired), maxEvents)]...)
		return v
	}
	// no use after the kill: stopped only if something could have seen one
	if open != nil {
		v.State, v.Missing = CannotTell, obsName(obs, missing)
		v.Events = append(v.Events, open.ID)
		v.Line = fmt.Sprintf("%s: cannot tell — %s began %s and no record of its end was seen (%s would show it)", name, open.ID, hms(open.Time), v.Missing)
		return v
	}
	if len(obs) == 0 {
		v.State, v.Missing = CannotTell, missing
		v.Line = fmt.Sprintf("%s: cannot tell — no source in this incident could show its use after %s (%s would)%s", name, stamp(kill), missing, claimed)
		return v
	}
	v.Observer = obs[0].Name
	v.Watermark = cov.WatermarkAsOf(obs[0], asOf)
	for _, o := range obs[1:] {
		if w := cov.WatermarkAsOf(o, asOf); w.After(v.Watermark) {
			v.Observer, v.Watermark = o.Name, w
		}
	}
	if !v.Watermark.After(kill) {
		v.State, v.Missing = CannotTell, v.Observer
		what := "reported nothing after the kill"
		if v.Watermark.IsZero() {
			what = "is not in this incident"
		}
		v.Line = fmt.Sprintf("%s: cannot tell — %s %s (%s)%s", name, v.Observer, what, stamp(kill), claimed)
		return v
	}
	for _, o := range obs {
		if g, ok := cov.GapIn(o, kill, v.Watermark); ok {
			v.State, v.Missing, v.Gap = CannotTell, o.Name, &g
			v.Line = fmt.Sprintf("%s: cannot tell — %s has a gap from %s to %s: %s%s", name, o.Name, hms(g.From), hms(g.To), g.Why, claimed)
			return v
		}
	}
	v.State = Stopped
	v.StoppedAt = maxTime(kill, inFlightEnd(v.InFlight))
	v.Line = fmt.Sprintf("%s: not used after %s; %s reported until %s", name, stamp(kill), v.Observer, hms(v.Watermark))
	v.Line += inFlightText(v.InFlight)
	v.Events = appendInFlight(v.Events, v.InFlight)
	return v
}

func obsName(obs []Observer, missing string) string {
	if len(obs) > 0 {
		return obs[0].Name
	}
	return missing
}

func missingFor(c *Capability, missing string) string {
	switch c.Kind {
	case Process, Schedule, Persisted:
		return "a runtime sensor's record of its exit or its container's removal, or an orchestrator's delete,"
	}
	if missing == "" {
		return "its issuer's log"
	}
	return missing
}

func inFlightEnd(u *Use) time.Time {
	if u == nil {
		return time.Time{}
	}
	return u.Time
}

// appendInFlight names the use in flight at the kill among the events a
// stop rests on: its end is when the capability stopped (room for it was
// kept among the uses after the kill).
func appendInFlight(ids []string, u *Use) []string {
	if u == nil {
		return ids
	}
	return append(ids, u.ID)
}

func inFlightText(u *Use) string {
	if u == nil {
		return ""
	}
	return fmt.Sprintf("; a use in flight at the kill (began %s, event %s) ended at %s", hms(u.Began()), u.ID, hms(u.Time))
}

func claimText(claims []End) string {
	if len(claims) == 0 {
		return ""
	}
	var parts []string
	for _, e := range claims {
		parts = append(parts, fmt.Sprintf("%q at %s by %s", e.How, hms(e.At), e.By))
	}
	return "; claimed ended (" + strings.Join(parts, "; ") + "), which nothing its issuer recorded corroborates"
}

// Describe names a capability with what makes it the agent's.
func Describe(c *Capability) string {
	switch {
	case c.Kind == Credential && c.Origin == Acquired && c.Owner != "" && c.Owner != c.Agent:
		return fmt.Sprintf("%s (acquired from %s's session)", c.Value, c.Owner)
	case IsKey(c), c.Kind == Credential && c.Provenance == ByCreate:
		return fmt.Sprintf("%s %s (%s)", c.CredKind, c.Value, c.How)
	case c.Kind == Credential && c.Owner == "":
		return "secret file " + c.Value
	case c.Kind == Place:
		return fmt.Sprintf("host %s (%s)", c.Value, c.How)
	case c.Kind == Job:
		return fmt.Sprintf("job %s (%s)", c.Value, c.How)
	case c.Kind == Workload:
		return fmt.Sprintf("workload %s (%s)", c.Value, c.How)
	case c.Kind == ToolCall:
		return "tool calls of " + c.Value
	case c.Kind == Process:
		return `process "` + c.How + `"` // quoted as text: %q's escapes would be escaped again where shown
	}
	return c.Value
}

func count(n int, exact bool) string {
	s := fmt.Sprintf("%d times", n)
	if n == 1 {
		s = "once"
	}
	if !exact {
		s = "at least " + s
	}
	return s
}

func fromText(k Kind, us []Use) string {
	var list []string
	for _, u := range us {
		if u.From != "" && !slices.Contains(list, u.From) {
			list = append(list, u.From)
		}
	}
	if len(list) == 0 {
		return ""
	}
	prep := " from "
	if k == Place {
		prep = " with "
	}
	if len(list) > 3 {
		return prep + strings.Join(list[:3], ", ") + fmt.Sprintf(" and %d more", len(list)-3)
	}
	return prep + strings.Join(list, ", ")
}

func fromOne(k Kind, u Use) string {
	if u.From == "" {
		return "(" + u.ID + ")"
	}
	if k == Place {
		return "with " + u.From
	}
	return "from " + u.From
}

// DurationText writes a duration a person reads: whole seconds, or
// milliseconds under a second (a stop 10ms after the kill is not "0s").
func DurationText(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

func hms(t time.Time) string { return t.UTC().Format(time.TimeOnly) }

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") }

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
