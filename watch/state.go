package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	"github.com/cordon-ir/cordon/detect"
	"github.com/nats-io/nats.go/jetstream"
)

// The state a watcher published is kept in a key-value bucket of its own,
// CORDON_WATCH_<durable>: one key per finding (its id), holding the Mark of
// what was last published of it, deleted when it is withdrawn. A watcher
// started again compares its rebuilt findings with it and publishes only
// the differences.

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
	marks map[string]detect.Mark
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
	st := &state{kv: kv, marks: map[string]detect.Mark{}}
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("read bucket %s: %w", name, err)
	}
	defer w.Stop()
	for e := range w.Updates() {
		if e == nil {
			break // every value there was when the watch began
		}
		var m detect.Mark
		if err := json.Unmarshal(e.Value(), &m); err != nil {
			return nil, fmt.Errorf("bucket %s, key %s: %w", name, e.Key(), err)
		}
		st.marks[e.Key()] = m
	}
	return st, ctx.Err()
}

// record keeps what was published: a Mark per finding created or
// updated, none for one withdrawn.
func (s *state) record(ctx context.Context, sent []outgoing) error {
	for _, o := range sent {
		if o.change == Withdrawn {
			if err := s.kv.Delete(ctx, o.id); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
				return fmt.Errorf("forget finding %s: %w", o.id, err)
			}
			delete(s.marks, o.id)
			continue
		}
		b, err := json.Marshal(o.mark)
		if err != nil {
			return err
		}
		if _, err := s.kv.Put(ctx, o.id, b); err != nil {
			return fmt.Errorf("keep finding %s: %w", o.id, err)
		}
		s.marks[o.id] = o.mark
	}
	return nil
}
