package capability

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The kill-switch layers, by the names the playbook gives them: each kind
// of capability is stopped by one.
const (
	LayerQueuedJobs     = "queued-jobs"
	LayerToolCalls      = "active-tool-calls"
	LayerCredentials    = "cached-credentials"
	LayerProcesses      = "background-processes"
	LayerExternal       = "external-sessions"
	LayerSchedules      = "scheduled-follow-ups"
	LayerPersistedState = "persisted-state"
)

// Layers lists the layers in the playbook's order.
func Layers() []string {
	return []string{LayerQueuedJobs, LayerToolCalls, LayerCredentials, LayerProcesses, LayerExternal, LayerSchedules, LayerPersistedState}
}

// LayerOf is the layer that stops a kind ("" for none: data that left
// cannot be stopped, only reported).
func LayerOf(k Kind) string {
	switch k {
	case Credential:
		return LayerCredentials
	case Place:
		return LayerExternal
	case Job, Workload:
		return LayerQueuedJobs
	case ToolCall:
		return LayerToolCalls
	case Process:
		return LayerProcesses
	case Schedule:
		return LayerSchedules
	case Persisted:
		return LayerPersistedState
	}
	return ""
}

// witnesses are the sources that would see a capability of a layer's
// kinds being acquired: a layer with none is stopped only where one of
// them was read.
var witnesses = map[string][]Observer{
	LayerQueuedJobs:     {ObsLedger},
	LayerToolCalls:      {ObsLedger},
	LayerCredentials:    {ObsLedger},
	LayerProcesses:      {ObsSensor},
	LayerExternal:       {ObsProxy, ObsTrail, ObsGCP, ObsGitHub, ObsK8s},
	LayerSchedules:      {ObsSensor, ObsLedger},
	LayerPersistedState: {ObsSensor, ObsLedger},
}

// Judged says whether a capability has a verdict: the session's own
// sandbox is stopped by the kill itself, and data that left is reported.
func Judged(c *Capability) bool {
	return LayerOf(c.Kind) != "" && !(c.Kind == Place && c.Origin == Granted)
}

// Unended reports a capability of a judged kind that no authoritative
// record ended: what the ranking counts as still held where no kill time
// has been judged (an Assessment decides once there is one).
func Unended(c *Capability) bool {
	_, ended := c.Ended()
	return !ended && Judged(c)
}

// LayerVerdict is one kill-switch layer: the worst of its capabilities.
type LayerVerdict struct {
	Layer string `json:"layer"`
	State State  `json:"state"`
	// StoppedAt is its latest stop (for Stopped).
	StoppedAt time.Time `json:"stopped_at,omitzero"`
	// LiveAfterKill says one of its capabilities was live after the kill
	// before it stopped: stopped, never plainly verified.
	LiveAfterKill bool `json:"live_after_kill,omitempty"`
	// Held counts its capabilities.
	Held int `json:"held"`
	// Line is what a responder reads: the capabilities that make it what
	// it is, or for a layer with none, what would have seen one.
	Line   string   `json:"line"`
	Events []string `json:"events,omitempty"`
}

// Assessment is the one answer to "is every capability stopped?" for a
// case's subject at a kill time, as of a time: every reader renders it.
type Assessment struct {
	Subject []string  `json:"subject"`
	Kill    time.Time `json:"kill,omitzero"`
	AsOf    time.Time `json:"as_of,omitzero"`
	// State is the case's: the worst of its layers ("" with no kill time:
	// nothing is judged before the agent is stopped).
	State State `json:"state,omitempty"`
	// Contained says every layer is stopped; ContainedAt is then the
	// latest stop of any capability (not the kill time).
	Contained   bool           `json:"contained"`
	ContainedAt time.Time      `json:"contained_at,omitzero"`
	Layers      []LayerVerdict `json:"layers"`
	// Capabilities are the verdicts of the subject's capabilities, in
	// layer order.
	Capabilities []Verdict `json:"capabilities"`
}

// Assess judges the subject's capabilities at kill, on the evidence up to
// asOf (zero: all of it). With no kill time nothing is judged.
func Assess(set *Set, subject []string, kill, asOf time.Time, cov *Coverage) Assessment {
	a := Assessment{Subject: slices.Clone(subject), Kill: kill, AsOf: asOf, Layers: []LayerVerdict{}, Capabilities: []Verdict{}}
	if kill.IsZero() {
		return a
	}
	byLayer := map[string][]Verdict{}
	for _, agent := range subject {
		for c := range set.All(agent) {
			if !Judged(c) || !asOf.IsZero() && firstSeen(c).After(asOf) {
				continue
			}
			v := Judge(c, kill, asOf, cov)
			byLayer[v.Layer] = append(byLayer[v.Layer], v)
		}
	}
	a.State, a.ContainedAt = Stopped, kill
	for _, l := range Layers() {
		vs := byLayer[l]
		a.Capabilities = append(a.Capabilities, vs...)
		lv := layerVerdict(l, vs, kill, cov)
		a.Layers = append(a.Layers, lv)
		a.State = Worse(a.State, lv.State)
		if lv.StoppedAt.After(a.ContainedAt) {
			a.ContainedAt = lv.StoppedAt
		}
	}
	a.Contained = a.State == Stopped
	if !a.Contained {
		a.ContainedAt = time.Time{}
	}
	return a
}

func firstSeen(c *Capability) time.Time {
	t := c.First()
	if t.IsZero() && len(c.Ends) > 0 {
		t = c.Ends[0].At
	}
	return t
}

func layerVerdict(layer string, vs []Verdict, kill time.Time, cov *Coverage) LayerVerdict {
	lv := LayerVerdict{Layer: layer, Held: len(vs)}
	if len(vs) == 0 {
		for _, o := range witnesses[layer] {
			if w := cov.Watermark(o); !w.IsZero() {
				lv.State, lv.StoppedAt = Stopped, kill
				lv.Line = fmt.Sprintf("none held: %s, read until %s, shows none", o.Name, hms(w))
				return lv
			}
		}
		var names []string
		for _, o := range witnesses[layer] {
			names = append(names, o.Name)
		}
		lv.State = CannotTell
		lv.Line = "cannot tell: none held as far as this incident shows, but " + strings.Join(names, " or ") + " would show one, and none is in it"
		return lv
	}
	lv.State = Stopped
	for _, v := range vs {
		lv.State = Worse(lv.State, v.State)
		if v.State == Stopped && v.StoppedAt.After(lv.StoppedAt) {
			lv.StoppedAt = v.StoppedAt
		}
		lv.LiveAfterKill = lv.LiveAfterKill || v.State == Stopped && v.LiveFor > 0
	}
	var lines []string
	for _, state := range []State{Live, CannotTell, Stopped} {
		// the capabilities that make the layer what it is first, then the
		// others that were not stopped at the kill itself
		for _, v := range vs {
			if v.State == state && (state != Stopped || v.LiveFor > 0 || v.InFlight != nil) {
				lines = append(lines, v.Line)
				lv.Events = append(lv.Events, v.Events...)
			}
		}
	}
	if lv.State != Stopped {
		lv.StoppedAt = time.Time{}
	}
	if len(lines) == 0 {
		lines = append(lines, fmt.Sprintf("%d held, every one stopped at the kill", len(vs)))
	}
	lv.Line = strings.Join(lines, "; ")
	if len(lv.Events) > maxEvents {
		lv.Events = lv.Events[:maxEvents]
	}
	return lv
}

// Layer is the verdict of one layer (false: not assessed).
func (a Assessment) Layer(layer string) (LayerVerdict, bool) {
	for _, l := range a.Layers {
		if l.Layer == layer {
			return l, true
		}
	}
	return LayerVerdict{}, false
}

// Of is the verdict of one capability (false: not judged).
func (a Assessment) Of(c *Capability) (Verdict, bool) {
	for _, v := range a.Capabilities {
		if v.Agent == c.Agent && v.Kind == c.Kind && v.Value == c.Value {
			return v, true
		}
	}
	return Verdict{}, false
}

// Holds says an agent of the subject still holds something: one of its
// capabilities is not stopped.
func (a Assessment) Holds(agent string) bool {
	for _, v := range a.Capabilities {
		if v.Agent == agent && v.State != Stopped {
			return true
		}
	}
	return false
}

// AgentContained says agent counts as stopped: it is of the subject, and
// the case is contained.
func (a Assessment) AgentContained(agent string) bool {
	return a.Contained && slices.Contains(a.Subject, agent)
}

// Headline says the case's state in one line, naming layers by their ids
// (HeadlineWith names them as a playbook titles them).
func (a Assessment) Headline() string { return a.HeadlineWith(func(l string) string { return l }) }

// HeadlineWith says the case's state in one line: what the report's
// banner, check and the console's status all say.
func (a Assessment) HeadlineWith(title func(layer string) string) string {
	if a.Kill.IsZero() {
		return "Not contained: no kill time is recorded"
	}
	var open, late []string
	for _, l := range a.Layers {
		switch {
		case l.State != Stopped:
			open = append(open, title(l.Layer)+" "+string(l.State))
		case l.LiveAfterKill:
			late = append(late, title(l.Layer))
		}
	}
	if a.Contained {
		s := "Contained at " + stamp(a.ContainedAt) + " (killed " + stamp(a.Kill) + ")"
		if len(late) > 0 {
			s += "; live after the kill until then: " + strings.Join(late, ", ")
		}
		return s
	}
	return "Not contained (killed " + stamp(a.Kill) + "): " + strings.Join(open, ", ")
}
