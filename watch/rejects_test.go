package watch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/nats-io/nats.go"
)

// A malformed message on the events' stream goes to cordon.rejects.<stream>
// with its origin and reason, once, though the watchers of two partitions
// both read it; the findings are the one-shot engine's all the same.
func TestMalformedMessageIsPublishedAsAReject(t *testing.T) {
	_, js := bus(t)
	evs := sampleEvents(t, "credential-theft")
	want := oneShot(t, evs)
	ctx := context.Background()
	bad := nats.NewMsg(fleet.EventSubject("proxy", "squid"))
	bad.Data = []byte("not an event \x1b[31m")
	ack, err := js.PublishMsg(ctx, bad)
	if err != nil {
		t.Fatal(err)
	}
	publishEvents(t, js, evs)
	var rejected int64
	for i := range 2 {
		s := watch(t, js, Config{Durable: "rejects", Partition: Partition{Index: i, Count: 2}, Lateness: 2 * time.Second, Idle: 500 * time.Millisecond})
		rejected += s.Rejected
	}
	sameFindings(t, js, want)
	if rejected != 2 {
		t.Errorf("the two partition watchers published %d rejects, want one each", rejected)
	}
	st, err := js.Stream(ctx, DefaultRejectsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Fatalf("%d messages on %s, want 1", info.State.Msgs, DefaultRejectsStream)
	}
	raw, err := st.GetMsg(ctx, info.State.FirstSeq)
	if err != nil {
		t.Fatal(err)
	}
	var m fleet.MessageReject
	if err := json.Unmarshal(raw.Data, &m); err != nil {
		t.Fatal(err)
	}
	if raw.Subject != RejectSubject(fleet.DefaultStream) || m.Origin != "nats:CORDON_EVENTS:"+itoa(ack.Sequence) || !strings.Contains(m.Reason, "not an event") {
		t.Errorf("reject on %s: %+v", raw.Subject, m)
	}
}

func itoa(n uint64) string { b, _ := json.Marshal(n); return string(b) }
