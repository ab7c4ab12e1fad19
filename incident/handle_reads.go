package incident

import (
	"context"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// The evidence reads through a console's handle: the workspace's (see
// reads.go), within the handle's bounds when it has any.

// Counts are the whole-incident counts kept at ingest.
func (h *Handle) Counts() evidence.Counts { return h.reader().Counts() }

// Search runs a typed query over the evidence.
func (h *Handle) Search(ctx context.Context, req evidence.Request) (*evidence.Hits, error) {
	return h.reader().Search(ctx, req)
}

// Page reads the evidence in time order from a cursor.
func (h *Handle) Page(ctx context.Context, req evidence.PageRequest) (*evidence.Page, error) {
	return h.reader().Page(ctx, req)
}

// Facet counts the values of field over the events matching q.
func (h *Handle) Facet(ctx context.Context, q evidence.Query, since, until time.Time, field string, size int) ([]evidence.Count, error) {
	return h.reader().Facet(ctx, q, since, until, field, size)
}

// Get is one event by id.
func (h *Handle) Get(ctx context.Context, id string) (evidence.Event, error) {
	return h.reader().Get(ctx, id)
}

// Each calls fn with every event matching q, oldest first, a page at a
// time.
func (h *Handle) Each(ctx context.Context, q evidence.Query, fn func(evidence.Event) error) error {
	return evidence.StoreSource{Store: h.reader()}.Each(ctx, q, fn)
}

// MainSpan is the evidence's main span, its ends exact.
func (h *Handle) MainSpan(ctx context.Context) (evidence.Span, error) {
	st := h.reader()
	return st.Counts().MainSpan().Exact(ctx, st)
}

// Agents are the agents the evidence names (Workspace.Agents).
func (h *Handle) Agents(ctx context.Context) ([]attribution.AgentSummary, error) {
	return attribution.Agents(ctx, h.reader())
}

// SessionIdentity is the identity map the session records give
// (Workspace.SessionIdentity).
func (h *Handle) SessionIdentity(ctx context.Context) (*attribution.Identity, error) {
	return attribution.SessionIdentity(ctx, h.reader())
}

// Now is the case's clock: wall time, or scenario time in a drill.
func (h *Handle) Now() time.Time { return h.ws.Now() }
