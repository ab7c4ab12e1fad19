package common

import (
	"context"
	"time"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/playbook"
)

// Casework is what the console asks of an incident workspace to work the
// case: read the playbook and the journal, and write to it through the
// incident use cases. *incident.Workspace implements it; tests may fake it.
type Casework interface {
	// Now is the case's clock: wall time, or scenario time in a drill.
	Now() time.Time
	Playbook() (*playbook.Playbook, error)
	State() (incident.CaseState, error)
	Case(ctx context.Context, s incident.CaseState) (incident.Case, error)
	SetStep(ctx context.Context, actor journal.Actor, id string, status incident.StepStatus, at time.Time, text string) (journal.Entry, error)
	SetChecklist(ctx context.Context, actor journal.Actor, id string, item int, done bool) (journal.Entry, error)
	Check(ctx context.Context, actor journal.Actor, ids ...string) ([]incident.CheckResult, error)
	Note(ctx context.Context, actor journal.Actor, step, event, text string) (journal.Entry, error)
	PlanAction(ctx context.Context, stepID, name string) (incident.ActionPlan, error)
	RunAction(ctx context.Context, actor journal.Actor, stepID string, p incident.ActionPlan, confirm string, dryRun bool) ([]incident.ActionRun, error)
	// AskPacket is the evidence Ask would send for a request to cfg's
	// model (to say what leaves the machine, and how much of the model's
	// context it takes, before it does); Ask runs an assistant task and
	// journals the exchange.
	AskPacket(ctx context.Context, cfg assist.Config, req incident.AskRequest) (assist.Packet, error)
	Ask(ctx context.Context, actor journal.Actor, cfg assist.Config, req incident.AskRequest, opts ...assist.Option) (assist.Result, error)
}

// Ask is a one-line question the root asks at the bottom of the screen on a
// pane's behalf (the pane hands it over synchronously, so that keys typed
// right after land in the input); the answer comes back to every pane as
// AnswerMsg.
type Ask struct {
	// Kind says what the answer is for: AskNote, AskDoneAt, AskSkip,
	// AskConfirm, AskQuestion.
	Kind  string
	Step  string // the step it concerns, if any
	Event string // the event it concerns, if any
	// Prompt is shown before the input; Value is the input's initial text.
	Prompt, Value, Placeholder string
}

// The kinds of question.
const (
	AskNote    = "note"
	AskDoneAt  = "done-at"
	AskSkip    = "skip"
	AskConfirm = "confirm" // the agent id typed back before an action runs
	// AskQuestion is the free-form question of the assistant's ask task.
	AskQuestion = "assistant-question"
)

// AnswerMsg is what the responder typed (enter) for an Ask, or that they
// cancelled it (esc).
type AnswerMsg struct {
	Ask       Ask
	Value     string
	Cancelled bool
}

// WrittenMsg reports a write to the case journal: Text for the status line,
// or Err. The root then polls the journal, so every pane sees the entry.
type WrittenMsg struct {
	Text string
	Err  error
}

// JournalChangedMsg says the journal grew (this console, another one or
// the command line wrote to it): panes that fold it reload.
type JournalChangedMsg struct{}

// SearchMsg asks the root to run a query in the timeline, as if the
// responder had typed it in the search bar.
type SearchMsg struct{ Query string }

// ShowEventMsg asks the root to open the event of that id.
type ShowEventMsg struct{ ID string }

// ReadOnlyText is what a key that would change the case says in an
// observer's console.
func ReadOnlyText() string { return journal.ErrReadOnly.Error() }
