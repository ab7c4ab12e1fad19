package report

import (
	"context"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// Reader is what the report reads of a case's evidence, through the
// case's use cases: an *incident.Workspace, or a console's
// *incident.Handle. The report never holds the store or the journal.
type Reader interface {
	evidence.Reader
	Each(ctx context.Context, q evidence.Query, fn func(evidence.Event) error) error
	SessionIdentity(ctx context.Context) (*attribution.Identity, error)
}
