package incident

import (
	"context"
	"github.com/cordon-ir/cordon/capability"
	"path/filepath"
	"slices"
	"time"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/playbook"
)

// Handle is one console's door into a case: the workspace, who acts in
// it, the ingest it follows and the configuration it was opened with.
// Every read a console makes goes through it. What is costly to compute
// (the findings and the capability sets) is kept by the workspace, not the
// handle, so that every handle on one workspace (the consoles of an SSH
// server's sessions) shares one run of the detectors.
type Handle struct {
	ws        *Workspace
	name      string
	actor     journal.Actor
	ingest    *IngestRun
	assist    assist.Config
	assistErr error
	bounds    *evidence.Bounds // reads through the handle are bounded (a served console)
}

// HandleOptions say who opens a case and how.
type HandleOptions struct {
	// Name is the case's name in the console's header (default: the
	// workspace folder's name).
	Name string
	// Actor is who the journal records for what is done through the
	// handle (default: the OS user, at a console).
	Actor journal.Actor
	// ReadOnly makes the actor an observer: it reads and searches, and
	// use cases that change the case refuse it.
	ReadOnly bool
	// Ingest is a background ingest into the workspace to follow, or nil.
	Ingest *IngestRun
	// Getenv reads the environment the assistant's endpoint may come
	// from (nil: none, cordon.yaml alone).
	Getenv func(string) string
	// Assistant, when set, is the assistant's endpoint as the caller built
	// it (checked by its Validate), instead of cordon.yaml and Getenv.
	Assistant *assist.Config
	// Bounds, when set, bound every read of the store through the handle
	// (a served console: evidence.DefaultServeBounds).
	Bounds *evidence.Bounds
}

// Handle opens the case for one console. It fails when cordon.yaml or the
// rules it adds cannot be read: the findings every pane starts from would
// be wrong. An assistant endpoint that cannot work is kept to be shown
// (Assistant), and the assistant answers offline.
func (w *Workspace) Handle(opt HandleOptions) (*Handle, error) {
	c, err := w.Config()
	if err != nil {
		return nil, err
	}
	if _, err := w.rules(); err != nil {
		return nil, err
	}
	h := &Handle{ws: w, name: opt.Name, actor: opt.Actor, ingest: opt.Ingest, bounds: opt.Bounds}
	if h.name == "" {
		h.name = filepath.Base(w.Dir)
	}
	if h.actor.Name == "" {
		h.actor = journal.CurrentActor(journal.ViaConsole)
	}
	h.actor.Observer = h.actor.Observer || opt.ReadOnly
	getenv := opt.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	h.assist, h.assistErr = c.AssistantConfig(getenv)
	if opt.Assistant != nil {
		h.assist, h.assistErr = *opt.Assistant, opt.Assistant.Validate()
	}
	return h, nil
}

// Name is the case's name for the header.
func (h *Handle) Name() string { return h.name }

// reader is the case's evidence, within the handle's bounds: every read
// through the handle goes through it.
func (h *Handle) reader() evidence.Reader {
	if h.bounds != nil {
		return evidence.Bounded(h.ws.store, *h.bounds)
	}
	return h.ws.store
}

// Actor is who the journal records for this handle's writes.
func (h *Handle) Actor() journal.Actor { return h.actor }

// Ingest is the background ingest the handle follows, or nil.
func (h *Handle) Ingest() *IngestRun { return h.ingest }

// Watch is a new reader of the background ingest (one per console: the
// consoles of several sessions follow one ingest), or nil without one.
func (h *Handle) Watch() *IngestWatch {
	if h.ingest == nil {
		return nil
	}
	return h.ingest.Watch()
}

// Assistant is the assistant's endpoint, and what is wrong with its
// configuration, if anything.
func (h *Handle) Assistant() (assist.Config, error) { return h.assist, h.assistErr }

// Marks are the workspace's marked events, or why marking is off.
func (h *Handle) Marks() (*Marks, error) { return h.ws.Marks() }

// History is the workspace's search history.
func (h *Handle) History() *History { return h.ws.History() }

// Findings are the case's findings, by the workspace's rules (the
// built-in ones and those cordon.yaml adds), from the run of the detectors
// every reader of the workspace shares. The slice is the caller's own: it
// may be sorted or cut.
func (h *Handle) Findings(ctx context.Context) ([]detect.Finding, error) {
	fs, err := h.ws.CachedFindings(ctx)
	return slices.Clone(fs), err
}

// Capabilities are the agents' capability sets, from the same run.
func (h *Handle) Capabilities(ctx context.Context) (*capability.Set, error) {
	return h.ws.Capabilities(ctx)
}

// Journal is the case journal, for the console's Journal pane alone: it
// is the journal's viewer (it follows the file and verifies the chain).
// Everything else reads and records through the use cases (record.go).
func (h *Handle) Journal() *journal.Journal { return h.ws.journal }

// Workspace is the case's workspace, for the readers above the case (the
// report's indicator register, which the console also shows).
func (h *Handle) Workspace() *Workspace { return h.ws }

// Config is the workspace's cordon.yaml.
func (h *Handle) Config() (*Config, error) { return h.ws.Config() }

// SetSubject names the agents the case is about (Workspace.SetSubject).
func (h *Handle) SetSubject(ctx context.Context, actor journal.Actor, agents []string) (journal.Entry, error) {
	return h.ws.SetSubject(ctx, actor, agents)
}

// Playbook is the playbook the case follows.
func (h *Handle) Playbook() (*playbook.Playbook, error) { return h.ws.Playbook() }

// State folds the journal into the case state.
func (h *Handle) State() (CaseState, error) { return h.ws.State() }

// Case fills the case from the journal and the evidence (Workspace.Case).
func (h *Handle) Case(ctx context.Context, s CaseState) (Case, error) { return h.ws.Case(ctx, s) }

// SetStep records a step started, done or skipped (Workspace.SetStep).
func (h *Handle) SetStep(ctx context.Context, actor journal.Actor, id string, status StepStatus, at time.Time, text string) (journal.Entry, error) {
	return h.ws.SetStep(ctx, actor, id, status, at, text)
}

// SetChecklist ticks or unticks a checklist item (Workspace.SetChecklist).
func (h *Handle) SetChecklist(ctx context.Context, actor journal.Actor, id string, item int, done bool) (journal.Entry, error) {
	return h.ws.SetChecklist(ctx, actor, id, item, done)
}

// Check runs and journals steps' evidence checks (Workspace.Check), from
// the shared run of the detectors.
func (h *Handle) Check(ctx context.Context, actor journal.Actor, ids ...string) ([]CheckResult, error) {
	return h.ws.Check(ctx, actor, ids...)
}

// Note journals a note (Workspace.Note).
func (h *Handle) Note(ctx context.Context, actor journal.Actor, step, event, text string) (journal.Entry, error) {
	return h.ws.Note(ctx, actor, step, event, text)
}

// PlanAction fills a step's action for the case (Workspace.PlanAction).
func (h *Handle) PlanAction(ctx context.Context, stepID, name string) (ActionPlan, error) {
	return h.ws.PlanAction(ctx, stepID, name)
}

// RunAction runs a confirmed action and journals it (Workspace.RunAction).
func (h *Handle) RunAction(ctx context.Context, actor journal.Actor, stepID string, p ActionPlan, confirm string, dryRun bool) ([]ActionRun, error) {
	return h.ws.RunAction(ctx, actor, stepID, p, confirm, dryRun)
}

// AskPacket is the evidence Ask would send (Workspace.AskPacket).
func (h *Handle) AskPacket(ctx context.Context, cfg assist.Config, req AskRequest) (assist.Packet, error) {
	return h.ws.AskPacket(ctx, cfg, req)
}

// Ask runs an assistant task and journals the exchange (Workspace.Ask).
func (h *Handle) Ask(ctx context.Context, actor journal.Actor, cfg assist.Config, req AskRequest, opts ...assist.Option) (assist.Result, error) {
	return h.ws.Ask(ctx, actor, cfg, req, opts...)
}
