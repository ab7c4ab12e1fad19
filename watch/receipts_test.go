package watch

import (
	"context"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
)

// A window of receipts larger than one message goes out in parts, every
// receipt in the chain once and in order; a second writer of the same
// chain makes the first one's next window fail instead of forking it.
func TestReceiptWindowsInPartsAndOneWriter(t *testing.T) {
	_, js := bus(t)
	receiptWindows(t, js)
}

// The same on a server whose max_payload (64 KiB) is under a part's
// 256 KiB: parts of half of it.
func TestReceiptWindowsUnderASmallMaxPayload(t *testing.T) {
	s := fleettest.ServerWith(t, func(o *server.Options) { o.MaxPayload = 64 << 10 })
	nc, js, err := fleet.Connect(s.ClientURL(), "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	receiptWindows(t, js)
}

func receiptWindows(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	ctx := context.Background()
	c1, err := openChain(ctx, js, DefaultReceiptsStream, "w")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a reason of some length ", 250) // ~6 KB a receipt
	var batch []pending
	for i := range 100 {
		batch = append(batch, pending{subject: VerdictSubject("agent-1"), request: []byte(`{"id":"r"}`),
			verdict: Verdict{Agent: "agent-1", Recommendation: Refuse, Reasons: []string{big}, RequestID: string(rune('a' + i%26))}})
	}
	if err := c1.commit(ctx, batch); err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, DefaultReceiptsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs < 2 {
		t.Fatalf("%d messages for 100 receipts of ~6 KB: the window was not sent in parts", info.State.Msgs)
	}
	rep, err := VerifyReceipts(ctx, js, DefaultReceiptsStream, "w")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Receipts != 100 || rep.Refused != 100 || len(rep.Breaks) != 0 {
		t.Fatalf("chain after a window in parts: %d receipts, %d refused, breaks %+v", rep.Receipts, rep.Refused, rep.Breaks)
	}

	// a second writer of the chain "w" (a second watcher of that name)
	c2, err := openChain(ctx, js, DefaultReceiptsStream, "w")
	if err != nil {
		t.Fatal(err)
	}
	if c2.seq != 100 {
		t.Fatalf("the second writer found the chain at %d, want 100", c2.seq)
	}
	if err := c2.commit(ctx, batch[:1]); err != nil {
		t.Fatal(err)
	}
	if err := c1.commit(ctx, batch[:1]); err == nil {
		t.Fatal("the first writer appended after the second: the chain forked")
	}
	rep, err = VerifyReceipts(ctx, js, DefaultReceiptsStream, "w")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Receipts != 101 || len(rep.Breaks) != 0 {
		t.Fatalf("chain after two writers: %d receipts, breaks %+v", rep.Receipts, rep.Breaks)
	}
}

// A request of nearly the server's max_payload is kept in its receipt as
// its size and digest: the receipt still goes out, the chain holds.
func TestReceiptOfAHugeRequest(t *testing.T) {
	_, js := bus(t)
	ctx := context.Background()
	c, err := openChain(ctx, js, DefaultReceiptsStream, "w")
	if err != nil {
		t.Fatal(err)
	}
	huge := []byte(`{"id":"r","action":"` + strings.Repeat("x", 1<<20-200) + `"}`)
	if err := c.commit(ctx, []pending{{subject: VerdictSubject("agent-1"), request: huge, verdict: Verdict{Agent: "agent-1", Recommendation: Refuse}}}); err != nil {
		t.Fatal(err)
	}
	found, _, err := FindReceipts(ctx, js, DefaultReceiptsStream, "w", func(*Receipt) bool { return true })
	if err != nil || len(found) != 1 {
		t.Fatalf("%d receipts, %v", len(found), err)
	}
	if got := string(found[0].Request); !strings.Contains(got, `"truncated":true`) || !strings.Contains(got, Hash(huge)) {
		t.Fatalf("the huge request's receipt holds %.200s", got)
	}
}
