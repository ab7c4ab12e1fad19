package evidence

import (
	"context"
	"time"
)

// ValueSpan is the first and the last event time of a field's value.
type ValueSpan struct{ First, Last time.Time }

// Spanner is a store that gives the span of every value of a field, over
// the whole case, in one request: a server's aggregation, where asking
// two one-event pages per value costs two round trips each (the agents'
// summary of a million-event case on VictoriaLogs: 80 pages, over 2 s,
// against one stats query of 0.3 s). A value with no event has no span.
type Spanner interface {
	Spans(ctx context.Context, field string) (map[string]ValueSpan, error)
}
