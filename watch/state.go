package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/cordon-ir/cordon/detect"
	"github.com/nats-io/nats.go/jetstream"
)

// The state a watcher published is kept in a key-value bucket of its own,
// CORDON_WATCH_<durable>: one key per finding (its id), holding the Mark of
// what was last published of it and how many messages announced it; a
// withdrawn finding keeps its key, marked withdrawn, so that its count
// goes on if it comes back. A watcher started again compares its rebuilt
// findings with it and publishes only the differences.

// names that may be a bucket's and a consumer's
var nameOK = regexp.MustCompile(`^[A-Za-z0-9_-]{1,200}$`)

// ValidName reports whether s may name a durable consumer, a bucket's
// part or a worker: [A-Za-z0-9_-], 1 to 200 of them.
func ValidName(s string) bool { return nameOK.MatchString(s) }

// BucketPrefix begins every watcher's bucket name.
const BucketPrefix = "CORDON_WATCH_"

// state is the published Marks, in memory and in the bucket.
type state struct {
	kv    jetstream.KeyValue
	marks map[string]detect.Mark // the findings published and not withdrawn
	seq   map[string]int         // messages published of each finding, withdrawn ones too
	// maxPayload is the server's limit on a message (0: none known)
	maxPayload int64
}

// kept is a finding's value in the bucket.
type kept struct {
	detect.Mark
	Seq       int  `json:"seq,omitempty"`
	Withdrawn bool `json:"withdrawn,omitempty"`
}

// openState opens (creates) the bucket of durable and reads it.
func openState(ctx context.Context, js jetstream.JetStream, durable string, replicas int) (*state, error) {
	name := BucketPrefix + durable
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      name,
		Description: "what cordon watch " + durable + " published of each finding",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    max(replicas, 1),
	})
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", name, err)
	}
	st := &state{kv: kv, marks: map[string]detect.Mark{}, seq: map[string]int{}, maxPayload: js.Conn().MaxPayload()}
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("read bucket %s: %w", name, err)
	}
	defer w.Stop()
	for e := range w.Updates() {
		if e == nil {
			break // every value there was when the watch began
		}
		var k kept
		if err := json.Unmarshal(e.Value(), &k); err != nil {
			return nil, fmt.Errorf("bucket %s, key %s: %w", name, e.Key(), err)
		}
		st.seq[e.Key()] = k.Seq
		if !k.Withdrawn {
			st.marks[e.Key()] = k.Mark
		}
	}
	return st, ctx.Err()
}

// record keeps what was published: each finding's Mark and count of
// messages, marked withdrawn for one withdrawn.
func (s *state) record(ctx context.Context, sent []outgoing) error {
	for _, o := range sent {
		b, err := json.Marshal(kept{Mark: o.mark, Seq: o.seq, Withdrawn: o.change == Withdrawn})
		if err != nil {
			return err
		}
		if _, err := s.kv.Put(ctx, o.id, b); err != nil {
			return fmt.Errorf("keep finding %s: %w", o.id, err)
		}
		s.seq[o.id] = o.seq
		if o.change == Withdrawn {
			delete(s.marks, o.id)
		} else {
			s.marks[o.id] = o.mark
		}
	}
	return nil
}
