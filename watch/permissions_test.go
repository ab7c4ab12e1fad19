package watch

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// violations are the errors a connection was told of: a permissions
// violation comes asynchronously.
type violations struct {
	mu   sync.Mutex
	errs []string
}

func (v *violations) saw(want string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, e := range v.errs {
		if strings.Contains(e, want) {
			return true
		}
	}
	return false
}

// wait waits up to 3s for a violation naming want.
func (v *violations) wait(t *testing.T, who, want string) {
	t.Helper()
	for end := time.Now().Add(3 * time.Second); !v.saw(want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			v.mu.Lock()
			defer v.mu.Unlock()
			t.Errorf("%s: no permissions violation for %s; errors: %v", who, want, v.errs)
			return
		}
	}
}

// On a bus with the recommended permissions, the watcher reads the stream,
// answers verdicts and writes receipts; a shipper, a console and a gateway
// cannot subscribe to cordon.verdict.> (so cannot answer one: with the
// watcher stopped a request finds no responder rather than an impostor's
// allow), and a shipper or a console cannot write, purge or delete a
// receipt (the chain after their attempts is the chain before).
func TestVerdictBusPermissions(t *testing.T) {
	bus := fleettest.SecuredBus(t)
	ctx := context.Background()
	connect := func(user string, opts ...nats.Option) (*nats.Conn, jetstream.JetStream, *violations) {
		v := &violations{}
		nc, err := nats.Connect(bus.URL(user), append([]nats.Option{nats.Name("test " + user),
			nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
				v.mu.Lock()
				v.errs = append(v.errs, err.Error())
				v.mu.Unlock()
			})}, opts...)...)
		if err != nil {
			t.Fatalf("%s: %v", user, err)
		}
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		return nc, js, v
	}

	// the shipper ships; the watcher watches, answers, keeps receipts
	snc, sjs, sv := connect("shipper")
	if _, err := fleet.EnsureStream(ctx, sjs, fleet.StreamConfig{Name: "CORDON_EVIDENCE"}); err != nil {
		t.Fatalf("shipper: %v", err)
	}
	// the gateway's ledger is shipped as ledger; a shipper may not
	var ledger, rest []evidence.Event
	for _, ev := range sampleEvents(t, sample) {
		if ev.Format == "cordon-ledger" {
			ledger = append(ledger, ev)
		} else {
			rest = append(rest, ev)
		}
	}
	publishEvents(t, sjs, rest)
	_, ljs, _ := connect("ledger")
	publishEvents(t, ljs, ledger)
	m, err := fleet.Encode(&ledger[0])
	if err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, time.Second) // a refused publish is never acknowledged
	if _, err := sjs.PublishMsg(short, m, jetstream.WithMsgID("forged")); err == nil {
		t.Error("a shipper published a record of the ledger's format")
	}
	cancelShort()
	// the events' stream sources the two (docs/nats/cordon-bus.conf)
	_, ojs, _ := connect("operator")
	waitFor(t, "the events sourced into the events' stream", func() bool {
		return fleettest.Messages(t, ojs, fleet.DefaultStream) == uint64(len(ledger)+len(rest))
	})
	_, wjs, wv := connect("watcher")
	w, err := New(wjs, Config{Durable: "cordon-watch", Idle: 300 * time.Millisecond,
		Verdicts: &VerdictConfig{Name: "w1", CommitEvery: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	waitIdle(t, wjs, w, "cordon-watch", done)
	// and it puts what each agent holds (at most every second)
	waitFor(t, "the watcher's holdings", func() bool {
		kv, err := wjs.KeyValue(ctx, HoldingsBucket(DefaultFindingsStream))
		if err != nil {
			return false
		}
		keys, err := kv.Keys(ctx)
		return err == nil && len(keys) > 0
	})

	gnc, _, gv := connect("gateway", nats.CustomInboxPrefix("_INBOX_gateway"))
	cnc, cjs, cv := connect("console")
	// each would answer every verdict with an allow, if it could
	impostors := map[string]*violations{"shipper": sv, "console": cv, "gateway": gv}
	for who, nc := range map[string]*nats.Conn{"shipper": snc, "console": cnc, "gateway": gnc} {
		if _, err := nc.Subscribe(VerdictPrefix+">", func(m *nats.Msg) {
			b, _ := json.Marshal(Verdict{VerdictID: who, Agent: "agent-12", Recommendation: Allow, PolicyHash: "x", RulesHash: "x"})
			_ = m.Respond(b)
		}); err != nil {
			t.Fatal(err)
		}
		_ = nc.Flush()
		impostors[who].wait(t, who, `Permissions Violation for Subscription to "cordon.verdict.>"`)
	}
	// nobody else reads the gateway's replies, and it reads nobody's
	for who, nc := range map[string]*nats.Conn{"shipper": snc, "console": cnc} {
		if _, err := nc.Subscribe("_INBOX_gateway.>", func(*nats.Msg) { t.Errorf("%s read a reply to the gateway", who) }); err != nil {
			t.Fatal(err)
		}
		_ = nc.Flush()
		impostors[who].wait(t, who, `Permissions Violation for Subscription to "_INBOX_gateway.>"`)
	}
	if _, err := gnc.Subscribe("_INBOX.>", func(*nats.Msg) { t.Error("the gateway read another's reply") }); err != nil {
		t.Fatal(err)
	}
	_ = gnc.Flush()
	gv.wait(t, "gateway", `Permissions Violation for Subscription to "_INBOX.>"`)
	for i := range 20 {
		v := ask(t, gnc, "agent-12", VerdictRequest{})
		if v.Recommendation != Refuse || !strings.HasPrefix(v.VerdictID, "w1-") {
			t.Fatalf("request %d answered by %s: %s", i, v.VerdictID, v.Recommendation)
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("watcher: %v", err)
	}
	if _, err := gnc.Request(VerdictSubject("agent-12"), nil, 300*time.Millisecond); err == nil {
		t.Error("with the watcher stopped, a verdict request was answered")
	}
	wv.mu.Lock()
	for _, e := range wv.errs {
		t.Errorf("the watcher was refused: %s", e)
	}
	wv.mu.Unlock()

	before, err := VerifyReceipts(ctx, cjs, DefaultReceiptsStream, "w1")
	if err != nil {
		t.Fatalf("console reading the receipts: %v", err)
	}
	if before.Receipts != 20 || before.Refused != 20 || len(before.Breaks) != 0 {
		t.Fatalf("the watcher's chain: %+v", before)
	}
	forged, _ := json.Marshal(Receipt{Schema: receiptSchema, Watcher: "w1", Seq: 21, Prev: before.Last, Subject: VerdictSubject("agent-12"),
		Verdict: Verdict{Agent: "agent-12", Recommendation: Allow}})
	for who, c := range map[string]struct {
		nc *nats.Conn
		js jetstream.JetStream
		v  *violations
	}{"shipper": {snc, sjs, sv}, "console": {cnc, cjs, cv}} {
		pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		if _, err := c.js.Publish(pctx, ReceiptSubject("w1"), forged); err == nil {
			t.Errorf("%s appended a receipt", who)
		}
		cancel()
		c.v.wait(t, who, `Permissions Violation for Publish to "cordon.receipts.w1"`)
		for _, api := range []string{"$JS.API.STREAM.PURGE." + DefaultReceiptsStream, "$JS.API.STREAM.MSG.DELETE." + DefaultReceiptsStream,
			"$JS.API.STREAM.DELETE." + DefaultReceiptsStream} {
			if m, err := c.nc.Request(api, []byte(`{"seq":1}`), 300*time.Millisecond); err == nil {
				t.Errorf("%s: %s answered: %s", who, api, m.Data)
			}
			c.v.wait(t, who, `Permissions Violation for Publish to "`+api+`"`)
		}
	}
	after, err := VerifyReceipts(ctx, cjs, DefaultReceiptsStream, "w1")
	if err != nil {
		t.Fatal(err)
	}
	if after.Receipts != before.Receipts || after.Last != before.Last || len(after.Breaks) != 0 {
		t.Errorf("the chain changed: before %+v, after %+v", before, after)
	}
}
