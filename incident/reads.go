package incident

import (
	"context"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/playbook"
)

// The evidence reads of a case. The readers above the case (the report,
// the bundle, the drill, the commands) read the evidence through these
// and never hold the store: how it is kept, bounded or rebuilt stays the
// workspace's concern.

// Counts are the whole-incident counts kept at ingest.
func (w *Workspace) Counts() evidence.Counts { return w.store.Counts() }

// Search runs a typed query over the evidence.
func (w *Workspace) Search(ctx context.Context, req evidence.Request) (*evidence.Hits, error) {
	return w.store.Search(ctx, req)
}

// Page reads the evidence in time order from a cursor.
func (w *Workspace) Page(ctx context.Context, req evidence.PageRequest) (*evidence.Page, error) {
	return w.store.Page(ctx, req)
}

// Facet counts the values of field over the events matching q.
func (w *Workspace) Facet(ctx context.Context, q evidence.Query, since, until time.Time, field string, size int) ([]evidence.Count, error) {
	return w.store.Facet(ctx, q, since, until, field, size)
}

// Get is one event by id.
func (w *Workspace) Get(ctx context.Context, id string) (evidence.Event, error) {
	return w.store.Get(ctx, id)
}

// Each calls fn with every event matching q, oldest first, a page at a
// time (evidence.StoreSource).
func (w *Workspace) Each(ctx context.Context, q evidence.Query, fn func(evidence.Event) error) error {
	return evidence.StoreSource{Store: w.store}.Each(ctx, q, fn)
}

// Agents are the agents the evidence names, with their counts and
// sessions (attribution.Agents).
func (w *Workspace) Agents(ctx context.Context) ([]attribution.AgentSummary, error) {
	return attribution.Agents(ctx, w.store)
}

// SessionIdentity is the identity map the session records give
// (attribution.SessionIdentity): bindings and their conflicts.
func (w *Workspace) SessionIdentity(ctx context.Context) (*attribution.Identity, error) {
	return attribution.SessionIdentity(ctx, w.store)
}

// SourceCoverage is, per source, the share of attributable events an
// agent's session accounts for (attribution.Coverage).
func (w *Workspace) SourceCoverage(ctx context.Context) ([]attribution.SourceCoverage, error) {
	return attribution.Coverage(ctx, w.store)
}

// ScanWith runs the detectors with the rules opt names over the evidence
// now, in memory: nothing is kept (a command's --rules).
func (w *Workspace) ScanWith(ctx context.Context, opt FindingsOptions) (detect.Result, error) {
	return w.scanReplay(ctx, opt)
}

// CheckSteps runs the steps' evidence checks for the case on the evidence
// as of now, rendering the Assessment of each step's layer, and journals
// nothing (the report's; Check journals).
func (w *Workspace) CheckSteps(ctx context.Context, steps []*playbook.Step, cs Case, now time.Time) ([]CheckResult, error) {
	return CheckSteps(ctx, w.store, steps, cs, now)
}
