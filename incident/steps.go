package incident

import (
	"encoding/json"
	"time"

	"github.com/cordon-ir/cordon/journal"
)

// StepStatus is where a playbook step stands.
type StepStatus string

// The statuses a step moves through; the zero value is "not started".
const (
	StepOpen    StepStatus = ""
	StepStarted StepStatus = "started"
	StepDone    StepStatus = "done"
	StepSkipped StepStatus = "skipped"
)

// StepState is what the journal says about one step.
type StepState struct {
	Status StepStatus
	By     journal.Actor
	At     time.Time // when the status was recorded
	Text   string    // the reason given with it, if any
	// Checked holds the checklist items ticked, by index.
	Checked map[int]bool
	// Ticks are the last tick or untick of each item, by index: who and
	// when, for an item opened in the console.
	Ticks map[int]Tick
	// Check is the last evidence check journaled for the step.
	Check *CheckResult
	// Notes counts the notes written on the step.
	Notes int
}

// Tick is who ticked (or unticked) a checklist item, and when.
type Tick struct {
	By   journal.Actor
	At   time.Time
	Done bool
}

// CaseState is the case as the journal records it: the agents under
// investigation, each step's status, and the times steps set.
type CaseState struct {
	Subject   []string
	SubjectBy journal.Actor
	Steps     map[string]*StepState
	// Times are the time variables steps set when marked done
	// (contained_at), as the responder recorded them.
	Times map[string]time.Time
	// Notes counts every note; Entries every journal entry.
	Notes, Entries int
}

// Payloads of the entries the case state folds.
type (
	stepPayload struct {
		// Sets and At: the time variable the step sets and its value.
		Sets string    `json:"sets,omitempty"`
		At   time.Time `json:"at,omitzero"`
	}
	checklistPayload struct {
		Item int    `json:"item"`
		Done bool   `json:"done"`
		Text string `json:"text,omitempty"`
	}
	subjectPayload struct {
		Agents []string `json:"agents"`
	}
)

// FoldJournal replays journal entries, oldest first, into the case state.
// The latest entry about a step wins: a step marked done can be started
// again, and its time variable then stays as last recorded.
func FoldJournal(entries []journal.Entry) CaseState {
	s := CaseState{Steps: map[string]*StepState{}, Times: map[string]time.Time{}, Entries: len(entries)}
	step := func(id string) *StepState {
		st := s.Steps[id]
		if st == nil {
			st = &StepState{Checked: map[int]bool{}, Ticks: map[int]Tick{}}
			s.Steps[id] = st
		}
		return st
	}
	for _, e := range entries {
		switch e.Type {
		case journal.EntryStepStarted, journal.EntryStepDone, journal.EntryStepSkipped:
			st := step(e.Step)
			st.Status = map[journal.EntryType]StepStatus{journal.EntryStepStarted: StepStarted, journal.EntryStepDone: StepDone, journal.EntryStepSkipped: StepSkipped}[e.Type]
			st.By, st.At, st.Text = e.Actor, e.Time, e.Text
			var p stepPayload
			if json.Unmarshal(e.Payload, &p) == nil && p.Sets != "" && !p.At.IsZero() && e.Type == journal.EntryStepDone {
				s.Times[p.Sets] = p.At
			}
		case journal.EntryChecklist:
			var p checklistPayload
			if json.Unmarshal(e.Payload, &p) == nil {
				st := step(e.Step)
				st.Checked[p.Item] = p.Done
				st.Ticks[p.Item] = Tick{By: e.Actor, At: e.Time, Done: p.Done}
			}
		case journal.EntryCheckResult:
			var r CheckResult
			if json.Unmarshal(e.Payload, &r) == nil && e.Step != "" {
				step(e.Step).Check = &r
			}
		case journal.EntrySubjectSet:
			var p subjectPayload
			if json.Unmarshal(e.Payload, &p) == nil {
				s.Subject, s.SubjectBy = p.Agents, e.Actor
			}
		case journal.EntryNote:
			s.Notes++
			if e.Step != "" {
				step(e.Step).Notes++
			}
		}
	}
	return s
}

// Step returns the state of a step (a zero state for one never touched).
func (s CaseState) Step(id string) StepState {
	if st := s.Steps[id]; st != nil {
		return *st
	}
	return StepState{}
}
