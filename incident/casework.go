package incident

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"slices"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/playbook"
)

// ErrNoStep: the playbook has no step of that id.
var ErrNoStep = errors.New("no such step")

// Config returns the workspace's cordon.yaml, read once.
func (w *Workspace) Config() (*Config, error) {
	w.configOnce.Do(func() { w.config, w.configErr = LoadConfig(w.Dir, w.shared) })
	return w.config, w.configErr
}

// Playbook returns the playbook the workspace follows.
func (w *Workspace) Playbook() (*playbook.Playbook, error) {
	c, err := w.Config()
	if err != nil {
		return nil, err
	}
	return c.LoadPlaybook()
}

// State folds the journal into the case state.
func (w *Workspace) State() (CaseState, error) {
	entries, err := w.journal.Entries()
	if err != nil {
		return CaseState{}, err
	}
	return FoldJournal(entries), nil
}

// Case fills the case from the journal and the evidence: the subject a
// responder named, or else the first agent of the ranking (DefaultSubject).
func (w *Workspace) Case(ctx context.Context, s CaseState) (Case, error) {
	subject, from := s.Subject, "journal"
	if len(subject) == 0 {
		res, err := w.scan(ctx)
		if err != nil {
			return Case{}, err
		}
		subject, from = DefaultSubject(res.Findings, res.Capabilities), "findings"
	}
	if len(subject) == 0 {
		from = ""
	}
	cs, err := LoadCase(ctx, w.store, subject, s.Times[playbook.VarContainedAt])
	if errors.Is(err, ErrHeld) {
		// held, its follower serving no reads: the case is its subject
		// and Assessment alone
		cs, err = Case{Subject: subject, ContainedAt: s.Times[playbook.VarContainedAt]}, nil
	}
	cs.SubjectFrom = from
	if err != nil || len(subject) == 0 {
		return cs, err
	}
	res, err := w.scan(ctx)
	if err != nil {
		return cs, err
	}
	for _, a := range subject {
		cs.Capabilities = append(cs.Capabilities, res.Capabilities.For(a)...)
	}
	cs.Assessment = capability.Assess(res.Capabilities, subject, cs.ContainedAt, time.Time{}, res.Coverage)
	cs.HarnessKill = SubjectKill(res.Kills, subject)
	return cs, nil
}

// SubjectKill is the latest of the subject's kills when every agent of it
// was killed, else zero: the one time that may be offered as the case's
// kill time.
func SubjectKill(kills map[string]time.Time, subject []string) time.Time {
	var last time.Time
	for _, a := range subject {
		t, ok := kills[a]
		if !ok {
			return time.Time{}
		}
		if t.After(last) {
			last = t
		}
	}
	return last
}

// SetSubject names the agents under investigation.
func (w *Workspace) SetSubject(ctx context.Context, actor journal.Actor, agents []string) (journal.Entry, error) {
	for _, a := range agents {
		if a == "" {
			return journal.Entry{}, errors.New("an empty agent name")
		}
		h, err := w.store.Search(ctx, evidence.Request{Query: evidence.Term("agent", a), Limit: 1})
		if err != nil {
			return journal.Entry{}, err
		}
		if h.Total == 0 {
			return journal.Entry{}, fmt.Errorf("%w: no events of agent %s (see cordon agents)", evidence.ErrNotFound, evidence.Printable(a))
		}
	}
	return w.appendJSON(ctx, journal.Entry{Actor: actor, Type: journal.EntrySubjectSet, Text: strings.Join(agents, ", ")}, subjectPayload{Agents: agents})
}

// SetStep records a step started, done or skipped. A step done that sets a
// time variable records at (zero: now) as its value.
func (w *Workspace) SetStep(ctx context.Context, actor journal.Actor, id string, status StepStatus, at time.Time, text string) (journal.Entry, error) {
	pb, err := w.Playbook()
	if err != nil {
		return journal.Entry{}, err
	}
	ref, ok := pb.Step(id)
	if !ok {
		return journal.Entry{}, fmt.Errorf("%w: %q (see cordon playbook show)", ErrNoStep, id)
	}
	types := map[StepStatus]journal.EntryType{StepStarted: journal.EntryStepStarted, StepDone: journal.EntryStepDone, StepSkipped: journal.EntryStepSkipped}
	typ, ok := types[status]
	if !ok {
		return journal.Entry{}, fmt.Errorf("step status %q: want started, done or skipped", status)
	}
	var p stepPayload
	if status == StepDone && ref.Step.Sets != "" {
		if at.IsZero() {
			at = w.journal.Now()
		}
		p = stepPayload{Sets: ref.Step.Sets, At: at.UTC()}
	}
	return w.appendJSON(ctx, journal.Entry{Actor: actor, Type: typ, Step: id, Text: text}, p)
}

// SetChecklist ticks (or unticks) item i of a step's checklist.
func (w *Workspace) SetChecklist(ctx context.Context, actor journal.Actor, id string, item int, done bool) (journal.Entry, error) {
	pb, err := w.Playbook()
	if err != nil {
		return journal.Entry{}, err
	}
	ref, ok := pb.Step(id)
	if !ok {
		return journal.Entry{}, fmt.Errorf("%w: %q", ErrNoStep, id)
	}
	if item < 0 || item >= len(ref.Step.Checklist) {
		return journal.Entry{}, fmt.Errorf("step %s has %d checklist items, not %d", id, len(ref.Step.Checklist), item+1)
	}
	return w.appendJSON(ctx, journal.Entry{Actor: actor, Type: journal.EntryChecklist, Step: id, Text: ref.Step.Checklist[item]},
		checklistPayload{Item: item, Done: done, Text: ref.Step.Checklist[item]})
}

// Check runs the evidence checks of the given steps (none: every step that
// has one) and journals each result.
func (w *Workspace) Check(ctx context.Context, actor journal.Actor, ids ...string) ([]CheckResult, error) {
	// Each result is journaled: a workspace that cannot take them (read-only,
	// shared) says so before the work, not after the first result.
	if err := w.journal.Writable(); err != nil {
		return nil, err
	}
	pb, err := w.Playbook()
	if err != nil {
		return nil, err
	}
	s, err := w.State()
	if err != nil {
		return nil, err
	}
	cs, err := w.Case(ctx, s)
	if err != nil {
		return nil, err
	}
	var steps []*playbook.Step
	if len(ids) == 0 {
		for _, r := range pb.Steps() {
			if r.Step.Check != nil {
				steps = append(steps, r.Step)
			}
		}
	}
	for _, id := range ids {
		r, ok := pb.Step(id)
		if !ok {
			return nil, fmt.Errorf("%w: %q", ErrNoStep, id)
		}
		steps = append(steps, r.Step)
	}
	// The checks run side by side; their results are journaled in the
	// steps' order, each only once every check before it has succeeded.
	out, err := CheckSteps(ctx, w.store, steps, cs, w.journal.Now())
	for i, res := range out {
		if _, jerr := w.appendJSON(ctx, journal.Entry{Actor: actor, Type: journal.EntryCheckResult, Step: steps[i].ID, Text: res.Summary()}, res); jerr != nil {
			return out[:i+1], jerr
		}
	}
	return out, err
}

// PlanAction fills a step's action for the case, for the responder to read
// before confirming.
func (w *Workspace) PlanAction(ctx context.Context, stepID, name string) (ActionPlan, error) {
	pb, err := w.Playbook()
	if err != nil {
		return ActionPlan{}, err
	}
	ref, ok := pb.Step(stepID)
	if !ok {
		return ActionPlan{}, fmt.Errorf("%w: %q", ErrNoStep, stepID)
	}
	if !slices.Contains(ref.Step.Actions, name) {
		return ActionPlan{}, fmt.Errorf("%w: step %s has no action %s (it has: %s)", ErrNoAction, stepID, name, strings.Join(ref.Step.Actions, ", "))
	}
	c, err := w.Config()
	if err != nil {
		return ActionPlan{}, err
	}
	s, err := w.State()
	if err != nil {
		return ActionPlan{}, err
	}
	cs, err := w.Case(ctx, s)
	if err != nil {
		return ActionPlan{}, err
	}
	return c.PlanAction(name, cs)
}

// ActionPayload is what the journal keeps of an action: the payload of a
// journal.EntryActionRun entry.
type ActionPayload struct {
	Action string      `json:"action"`
	DryRun bool        `json:"dry_run,omitempty"`
	Runs   []ActionRun `json:"runs"`
	Error  string      `json:"error,omitempty"`
}

// RunAction executes a planned action after the typed confirmation and
// journals the commands, exit codes and output, failed runs included. A
// confirmation that does not match runs and journals nothing.
func (w *Workspace) RunAction(ctx context.Context, actor journal.Actor, stepID string, p ActionPlan, confirm string, dryRun bool) ([]ActionRun, error) {
	if actor.Observer {
		return nil, journal.ErrReadOnly
	}
	// What runs must reach the journal: a workspace that cannot take the
	// entry (read-only, shared) refuses before anything changes the world.
	if err := w.journal.Writable(); err != nil {
		return nil, err
	}
	dryRun = dryRun || w.rehearsal
	runs, err := p.Execute(ctx, confirm, dryRun)
	if errors.Is(err, ErrNotConfirmed) {
		return nil, err
	}
	payload := ActionPayload{Action: p.Name, DryRun: dryRun, Runs: runs}
	text := p.Title
	if dryRun {
		text += " (dry run)"
	}
	if err != nil {
		payload.Error = err.Error()
		text += ": " + err.Error()
	}
	if _, jerr := w.appendJSON(ctx, journal.Entry{Actor: actor, Type: journal.EntryActionRun, Step: stepID, Text: text}, payload); jerr != nil {
		return runs, errors.Join(err, jerr)
	}
	return runs, err
}

// Note journals a note on an event, a step, or the case.
func (w *Workspace) Note(ctx context.Context, actor journal.Actor, step, event, text string) (journal.Entry, error) {
	if strings.TrimSpace(text) == "" {
		return journal.Entry{}, errors.New("an empty note")
	}
	return w.journal.Append(ctx, journal.Entry{Actor: actor, Type: journal.EntryNote, Step: step, Event: event, Text: text})
}

// appendJSON journals e with payload p (nil or zero: none).
func (w *Workspace) appendJSON(ctx context.Context, e journal.Entry, p any) (journal.Entry, error) {
	if p != nil {
		b, err := json.Marshal(p)
		if err != nil {
			return journal.Entry{}, err
		}
		if string(b) != "{}" {
			e.Payload = b
		}
	}
	return w.journal.Append(ctx, e)
}
