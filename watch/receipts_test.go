package watch

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
)

// A window of receipts that compresses to more than one message goes out
// in parts, every receipt in the chain once and in order; a second writer
// of the same chain makes the first one's next window fail instead of
// forking it.
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
	rnd := rand.New(rand.NewPCG(1, 2))
	var batch []pending
	for i := range 100 {
		noise := make([]byte, 4500) // ~6 KB a receipt that S2 cannot shrink much
		for j := range noise {
			noise[j] = byte(rnd.Uint32())
		}
		batch = append(batch, pending{subject: VerdictSubject("agent-1"), request: []byte(`{"id":"r"}`),
			verdict: Verdict{Agent: "agent-1", Recommendation: Refuse, Reasons: []string{base64.StdEncoding.EncodeToString(noise)}, RequestID: string(rune('a' + i%26))}})
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
	for n := uint64(1); n <= info.State.LastSeq; n++ {
		m, err := s.GetMsg(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Data) > int(js.Conn().MaxPayload()) || m.Header.Get(encodingHeader) != encodingS2 {
			t.Fatalf("message %d: %d bytes (max_payload %d), encoding %q", n, len(m.Data), js.Conn().MaxPayload(), m.Header.Get(encodingHeader))
		}
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

// A window of receipts of the same verdict, what a gateway asking again
// and again about one refused agent makes, is one message a fraction of
// its size: S2 stores each repeat as a reference. Verify and find read it.
func TestReceiptWindowCompressed(t *testing.T) {
	_, js := bus(t)
	ctx := context.Background()
	c, err := openChain(ctx, js, DefaultReceiptsStream, "w")
	if err != nil {
		t.Fatal(err)
	}
	reasons := []string{strings.Repeat("a reason of some length ", 250)} // ~6 KB a receipt
	var batch []pending
	raw := 0
	for i := range 100 {
		v := Verdict{Agent: "agent-1", Recommendation: Refuse, Reasons: reasons, RequestID: fmt.Sprint("r", i)}
		reply, _ := json.Marshal(v)
		raw += len(reply)
		batch = append(batch, pending{subject: VerdictSubject("agent-1"), request: []byte(`{"id":"r"}`), verdict: v, reply: reply})
	}
	if err := c.commit(ctx, batch); err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, DefaultReceiptsStream)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(ctx, ReceiptSubject("w"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Sequence != 1 || len(m.Data) > raw/10 {
		t.Fatalf("100 receipts of %d bytes of verdicts: message %d of %d bytes", raw, m.Sequence, len(m.Data))
	}
	rep, err := VerifyReceipts(ctx, js, DefaultReceiptsStream, "w")
	if err != nil || rep.Receipts != 100 || len(rep.Breaks) != 0 {
		t.Fatalf("verify: %+v, %v", rep, err)
	}
	found, unreadable, err := FindReceipts(ctx, js, DefaultReceiptsStream, "w", func(r *Receipt) bool { return r.Verdict.RequestID == "r42" })
	if err != nil || unreadable != 0 || len(found) != 1 || found[0].Seq != 43 {
		t.Fatalf("find r42: %d found, %d unreadable, %v", len(found), unreadable, err)
	}
}

// A message of receipts that does not decompress, or says an encoding
// cordon does not know, is a break verify names, not a stop.
func TestReceiptMessageThatDoesNotDecompress(t *testing.T) {
	for _, h := range []map[string]string{{encodingHeader: encodingS2}, {encodingHeader: "zstd"}} {
		_, js := bus(t)
		ctx := context.Background()
		c, err := openChain(ctx, js, DefaultReceiptsStream, "w")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.commit(ctx, []pending{{subject: VerdictSubject("agent-1"), verdict: Verdict{Agent: "agent-1", Recommendation: Refuse}}}); err != nil {
			t.Fatal(err)
		}
		m := nats.NewMsg(ReceiptSubject("w"))
		for k, v := range h {
			m.Header.Set(k, v)
		}
		m.Data = []byte("\xff\xff\xff\xff\x0fnot s2 at all")
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
		rep, err := VerifyReceipts(ctx, js, DefaultReceiptsStream, "w")
		if err != nil {
			t.Fatal(err)
		}
		if rep.Receipts != 1 || len(rep.Breaks) != 1 || rep.Breaks[0].StreamSeq != 2 || !strings.Contains(rep.Breaks[0].Problem, "receipts") {
			t.Fatalf("%v: %+v", h, rep)
		}
		if _, err := openChain(ctx, js, DefaultReceiptsStream, "w"); err == nil {
			t.Fatalf("%v: a chain whose last message does not read was opened for writing", h)
		}
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
