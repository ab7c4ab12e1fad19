package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/fleet/fleettest"
)

// A replay of subjects none of the stream's messages is on ends at once
// instead of waiting for one (a pull from a stream of other subjects).
func TestReplayOfSubjectsWithNoMessagesEnds(t *testing.T) {
	s := fleettest.Server(t)
	nc, js, err := Connect(s.ClientURL(), "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := EnsureStream(ctx, js, StreamConfig{Subjects: []string{"falco.>"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "falco.warning.x", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = Replay(ctx, js, ReaderConfig{}, 1, func(Delivery) error { n++; return nil })
	if err != nil || n != 0 {
		t.Fatalf("replay: %d events, %v", n, err)
	}
}
