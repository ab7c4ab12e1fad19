package evidence

import zapv17 "github.com/blevesearch/zapx/v17"

// Scorch builds each batch into a zap segment in memory, and zap sizes
// the segment's buffer from the previous batch: its average bytes per
// document times the batch's documents plus 100 more. That margin is
// nothing for a batch of 2000 small events; after a batch of two events
// holding 7 MiB of incompressible text each it reserved 1.4 GB for the
// next batch of two, and an ingest of 60 such records held 3.1 GB. The
// buffer grows as it needs anyway; the estimate keeps the documents of
// the batch only. (zap is scorch's segment format; v17 writes every new
// segment.)
func init() { zapv17.NewSegmentBufferNumResultsBump = 0 }
