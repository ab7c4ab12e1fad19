package playbook

// Layer is one capability an agent can keep after its process dies; the
// Contain phase closes them one by one.
type Layer string

// The kill-switch layers, in the order the Contain phase closes them.
const (
	LayerQueuedJobs          Layer = "queued-jobs"
	LayerActiveToolCalls     Layer = "active-tool-calls"
	LayerCachedCredentials   Layer = "cached-credentials"
	LayerBackgroundProcesses Layer = "background-processes"
	LayerExternalSessions    Layer = "external-sessions"
	LayerScheduledFollowUps  Layer = "scheduled-follow-ups"
	LayerPersistedState      Layer = "persisted-state"
)

// Layers lists the kill-switch layers in order.
func Layers() []Layer {
	return []Layer{
		LayerQueuedJobs, LayerActiveToolCalls, LayerCachedCredentials,
		LayerBackgroundProcesses, LayerExternalSessions, LayerScheduledFollowUps,
		LayerPersistedState,
	}
}

// Valid reports one of the seven layers.
func (l Layer) Valid() bool {
	for _, x := range Layers() {
		if x == l {
			return true
		}
	}
	return false
}

// Title is the layer's name for people.
func (l Layer) Title() string {
	switch l {
	case LayerQueuedJobs:
		return "Queued jobs"
	case LayerActiveToolCalls:
		return "Active tool calls"
	case LayerCachedCredentials:
		return "Cached credentials"
	case LayerBackgroundProcesses:
		return "Background processes"
	case LayerExternalSessions:
		return "External sessions"
	case LayerScheduledFollowUps:
		return "Scheduled follow-ups"
	case LayerPersistedState:
		return "Persisted state"
	}
	return string(l)
}

// Expect says what a check wants its queries to find.
type Expect string

// The outcomes a check can expect.
const (
	ExpectNone Expect = "none" // no matching event: the capability is closed
	ExpectSome Expect = "some" // at least one: the evidence shows what was asked
)

// Playbook is a sequence of phases a responder walks through.
type Playbook struct {
	ID          string
	Title       string
	Description string // Markdown
	Phases      []Phase
	Origin      string // file:line it was read from
}

// Phase is a stage of the response: Detect, Triage, ..., Review.
type Phase struct {
	ID    string
	Title string
	Steps []Step
	Line  int
}

// Step is one thing a responder does and ticks off.
type Step struct {
	ID        string
	Title     string
	Layer     Layer // the kill-switch layer the step closes, if any
	Guidance  string
	Checklist []string
	Queries   []SavedQuery
	Check     *Check
	Actions   []string // command templates configured in cordon.yaml
	Sets      string   // the time variable marking the step done records
	DoneWhen  string
	Line      int
}

// SavedQuery is a query the console opens in the timeline.
type SavedQuery struct {
	Title string
	Query string
}

// Check proves or disproves a step from the evidence: the union of its
// queries, counted from the time variable After on, must find nothing
// (ExpectNone) or something (ExpectSome). Coverage names the evidence that
// could have shown it at all: when none of it falls in the window, the
// answer is "no evidence available", not a pass.
type Check struct {
	Title    string
	Expect   Expect
	After    string
	Queries  []string
	Coverage []string
}

// StepRef is a step with the phase it belongs to.
type StepRef struct {
	Phase *Phase
	Step  *Step
}

// Steps lists every step in order with its phase.
func (p *Playbook) Steps() []StepRef {
	var out []StepRef
	for i := range p.Phases {
		ph := &p.Phases[i]
		for j := range ph.Steps {
			out = append(out, StepRef{ph, &ph.Steps[j]})
		}
	}
	return out
}

// Step finds a step by id.
func (p *Playbook) Step(id string) (StepRef, bool) {
	for _, r := range p.Steps() {
		if r.Step.ID == id {
			return r, true
		}
	}
	return StepRef{}, false
}

// Phase finds a phase by id.
func (p *Playbook) Phase(id string) (*Phase, bool) {
	for i := range p.Phases {
		if p.Phases[i].ID == id {
			return &p.Phases[i], true
		}
	}
	return nil, false
}

// LayerSteps lists the steps that close a kill-switch layer, in playbook
// order.
func (p *Playbook) LayerSteps() []StepRef {
	var out []StepRef
	for _, r := range p.Steps() {
		if r.Step.Layer != "" {
			out = append(out, r)
		}
	}
	return out
}

// Variables lists the template variables the playbook uses anywhere, in
// the order of Variables().
func (p *Playbook) Variables() []string {
	used := map[string]bool{}
	add := func(s string) {
		for _, n := range Names(s) {
			used[n] = true
		}
	}
	add(p.Description)
	for _, r := range p.Steps() {
		s := r.Step
		add(s.Title)
		add(s.Guidance)
		add(s.DoneWhen)
		for _, c := range s.Checklist {
			add(c)
		}
		for _, q := range s.Queries {
			add(q.Title)
			add(q.Query)
		}
		if s.Check != nil {
			add(s.Check.Title)
			for _, q := range s.Check.Queries {
				add(q)
			}
			for _, q := range s.Check.Coverage {
				add(q)
			}
			if s.Check.After != "" {
				used[s.Check.After] = true
			}
		}
	}
	var out []string
	for _, v := range Variables() {
		if used[v] {
			out = append(out, v)
		}
	}
	return out
}

// Rendered is a check with its templates expanded for one incident.
type Rendered struct {
	Queries  []string // the union to count
	Coverage []string // the evidence that could show it
	// Missing names the variables without a value: the queries that use
	// them were left out, so a "none" is weaker than it looks.
	Missing []string
}

// Render expands a check's queries and coverage for an incident's
// variables. A query that names a variable with no value is left out and
// the variable listed in Missing: one unknown pod should not hide what the
// container and IP queries can show. Only when no query renders at all is
// it an error, wrapping ErrMissingVar.
func (c *Check) Render(v Vars) (Rendered, error) {
	var r Rendered
	expand := func(tmpls []string) []string {
		var out []string
		for _, t := range tmpls {
			qs, err := Expand(t, v)
			if err != nil {
				if me, ok := err.(*MissingVarError); ok {
					for _, n := range me.Names {
						if !contains(r.Missing, n) {
							r.Missing = append(r.Missing, n)
						}
					}
				}
				continue
			}
			for _, q := range qs {
				if !contains(out, q) {
					out = append(out, q)
				}
			}
		}
		return out
	}
	r.Queries = expand(c.Queries)
	r.Coverage = expand(c.Coverage)
	if len(r.Queries) == 0 && len(c.Queries) > 0 {
		return r, &MissingVarError{Names: r.Missing}
	}
	return r, nil
}
