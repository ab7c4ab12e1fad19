package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// ShipOptions control Ship.
type ShipOptions struct {
	Format string    // read every input as this format instead of sniffing
	Stdin  io.Reader // read for the input "-"
	// Follow keeps shipping what is appended to the inputs, every
	// Interval (default 500ms), until ctx ends; Round sees each round.
	Follow   bool
	Interval time.Duration
	Round    func([]ingest.FileResult)
	// Reject is told of every record that is not sent: one that did not
	// parse (its origin is file:line) or an event too large for a message.
	Reject    func(parse.Reject)
	BatchSize int // events per acknowledged batch (ingest's default)
}

// ShipResult is what a Ship did.
type ShipResult struct {
	Files []ingest.FileResult // the last round's, one per input
	// Read is how many events were read from the inputs (every round of
	// a follow), Acked how many of them the stream acknowledged: "sent
	// Acked of Read". Duplicates were acknowledged as already on the
	// stream; Oversize were too large to send and are among Rejects.
	Read, Acked, Duplicates int64
	Rejects, Oversize       int64
}

// Ship reads inputs with ingest's parsers and publishes their events
// through pub. Checkpoints are ingest's own, kept in state: a batch's
// checkpoint is written once the stream acknowledged every event of it,
// so a run that stops (a crash, an interrupt, a server gone) resumes after
// the last such batch and sends again at most the batch it was in, which
// the stream's duplicate window, and past it the reader, drop.
func Ship(ctx context.Context, pub *Publisher, state *State, inputs []string, opt ShipOptions) (ShipResult, error) {
	var res ShipResult
	acked0, dups0 := pub.Acked(), pub.Duplicates()
	reject := func(r parse.Reject) {
		res.Rejects++
		if opt.Reject != nil {
			opt.Reject(r)
		}
	}
	st := &shipStore{pub: pub, state: state, oversize: func(o Oversize) {
		res.Oversize++
		reject(parse.Reject{Origin: o.Event.Origin, Format: o.Event.Format, Data: o.Event.Raw,
			Reason: fmt.Sprintf("event %s is %d bytes as JSON, more than the server's max_payload of %d: not sent", o.Event.ID, o.Size, o.Limit)}.Bounded())
	}}
	iopt := ingest.Options{Format: opt.Format, Stdin: opt.Stdin, Store: st, BatchSize: opt.BatchSize,
		Rejects: rejectLog(func(rs []parse.Reject) {
			for _, r := range rs {
				reject(r)
			}
		})}
	tally := func(files []ingest.FileResult) {
		res.Files = files
		for _, f := range files {
			res.Read += int64(f.Events)
		}
	}
	var err error
	if opt.Follow {
		interval := opt.Interval
		if interval <= 0 {
			interval = 500 * time.Millisecond
		}
		err = ingest.Follow(ctx, inputs, iopt, interval, func(files []ingest.FileResult) {
			tally(files)
			if opt.Round != nil {
				opt.Round(files)
			}
		})
	} else {
		var files []string
		if files, err = ingest.Expand(inputs); err != nil {
			return res, err
		}
		var results []ingest.FileResult
		results, err = ingest.Run(ctx, files, iopt)
		tally(results)
	}
	res.Acked, res.Duplicates = pub.Acked()-acked0, pub.Duplicates()-dups0
	return res, err
}

// rejectLog hands ingest's rejects to a function.
type rejectLog func([]parse.Reject)

func (f rejectLog) Add(rs []parse.Reject) error { f(rs); return nil }

// errNotIndexed: a shipper keeps no events to read back.
var errNotIndexed = errors.New("a shipper keeps no events: read them from the stream")

// shipStore is the evidence.Store ingest writes to when it ships: Index
// publishes a batch and, once the stream acknowledged all of it, keeps the
// batch's checkpoints; State reads them back. It holds no events, so the
// reading half of the interface finds nothing.
type shipStore struct {
	pub      *Publisher
	state    *State
	oversize func(Oversize)
}

func (s *shipStore) Index(ctx context.Context, events []evidence.Event, state map[string][]byte) (int, error) {
	fresh, err := s.pub.Publish(ctx, events, s.oversize)
	if err != nil {
		return fresh, err
	}
	return fresh, s.state.Put(state)
}

func (s *shipStore) State(key string) ([]byte, error) { return s.state.Get(key), nil }

// Search finds nothing. Ingest asks it for the requests whose earlier
// stage it gave alone before (a Kubernetes audit RequestReceived): a
// shipper does not know them, so such a request's later stage is sent as
// an event of its own with the same id, and its Key (which names the
// earlier stage) keeps the two apart on the stream.
func (s *shipStore) Search(context.Context, evidence.Request) (*evidence.Hits, error) {
	return &evidence.Hits{}, nil
}

func (s *shipStore) Page(context.Context, evidence.PageRequest) (*evidence.Page, error) {
	return nil, errNotIndexed
}

func (s *shipStore) Facet(context.Context, evidence.Query, time.Time, time.Time, string, int) ([]evidence.Count, error) {
	return nil, errNotIndexed
}

// Replace publishes the later stages of requests given earlier in the run.
func (s *shipStore) Replace(ctx context.Context, events []evidence.Event) (int, error) {
	return s.pub.Publish(ctx, events, s.oversize)
}

func (s *shipStore) Get(context.Context, string) (evidence.Event, error) {
	return evidence.Event{}, evidence.ErrNotFound
}

func (s *shipStore) Counts() evidence.Counts { return evidence.Counts{} }

// Sync has nothing to wait for: Index returns once the stream has the batch.
func (s *shipStore) Sync(context.Context) error { return nil }
func (s *shipStore) Close() error               { return nil }
