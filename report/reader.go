package report

import (
	"context"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// Reader is what the report reads of a case's evidence, through the
// case's use cases: an *incident.Workspace, or a console's
// *incident.Handle. The report never holds the store or the journal.
type Reader interface {
	Counts() evidence.Counts
	Search(ctx context.Context, req evidence.Request) (*evidence.Hits, error)
	Get(ctx context.Context, id string) (evidence.Event, error)
	Facet(ctx context.Context, q evidence.Query, since, until time.Time, field string, size int) ([]evidence.Count, error)
	Each(ctx context.Context, q evidence.Query, fn func(evidence.Event) error) error
	SessionIdentity(ctx context.Context) (*attribution.Identity, error)
}
