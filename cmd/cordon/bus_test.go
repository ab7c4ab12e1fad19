package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/cordon-ir/cordon/watch"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The bus docs/nats/cordon-bus.conf documents, on a server started with
// that file and the streams cordon bus init makes: a shipper ships and
// cannot read, a sensor publishes raw records and cannot read, only the
// ledger's role writes records in the ledger's format, a watcher publishes
// findings and can neither write evidence nor delete the stream, nor make
// the server write a record onto the ledger's subject into the events a
// watcher reads; a console pulls and writes nothing.
func TestBusPermissions(t *testing.T) {
	bus := fleettest.BusServer(t)
	as := bus.URL
	busInit(t, as)
	connect := func(user string) *nats.Conn {
		nc, err := nats.Connect(as(user))
		if err != nil {
			t.Fatalf("%s: %v", user, err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	jsOf := func(user string) jetstream.JetStream {
		js, err := jetstream.New(connect(user))
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	adminJS, evidenceJS, ledgerJS := jsOf("operator"), jsOf("evidence-operator"), jsOf("ledger-operator")
	ctx := context.Background()
	const evidenceStream, ledgerStream = "CORDON_EVIDENCE", "CORDON_LEDGER"
	// the events the watchers and consoles read, and the two streams they
	// are sourced from; the sourcing is the server's, a moment later
	held := func() uint64 { return fleettest.Messages(t, adminJS, fleet.DefaultStream) }
	sourced := func() uint64 {
		return fleettest.Messages(t, evidenceJS, evidenceStream) + fleettest.Messages(t, ledgerJS, ledgerStream)
	}
	caughtUp := func(what string) uint64 {
		t.Helper()
		waitFor(t, what, func() bool { return held() == sourced() })
		return held()
	}

	// the proxy's and the sensors' logs go as shipper, the gateway's
	// ledger as ledger, each to its account's stream
	sample := filepath.Join("..", "..", "sample-incidents", "shared-volume-token")
	code, out, errOut := cordon("ship", "--nats", as("shipper"), "--stream", evidenceStream, "--state", filepath.Join(t.TempDir(), "ship.json"),
		filepath.Join(sample, "proxy"), filepath.Join(sample, "sensor"))
	if code != 0 {
		t.Fatalf("ship as shipper: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cordon("ship", "--nats", as("ledger"), "--stream", ledgerStream, "--state", filepath.Join(t.TempDir(), "ledger.json"), filepath.Join(sample, "ledger.jsonl"))
	if code != 0 {
		t.Fatalf("ship the ledger as ledger: exit %d\n%s%s", code, out, errOut)
	}
	if fleettest.Messages(t, ledgerJS, ledgerStream) == 0 || fleettest.Messages(t, evidenceJS, evidenceStream) == 0 {
		t.Fatal("nothing shipped")
	}
	shipped := caughtUp("the shipped events in the events' stream")
	// the console checks the bus: sourced, the ledger's stream named
	code, out, errOut = cordon("bus", "check", "--nats", as("console"))
	for _, want := range []string{"stream CORDON_EVENTS: " + strconv.FormatUint(shipped, 10) + " messages, takes no subject of its own",
		"source CORDON_EVIDENCE: 0 behind", "source CORDON_LEDGER: 0 behind", "ledger records: taken only from messages sourced from CORDON_LEDGER"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("bus check: exit %d, no %q in\n%s%s", code, want, out, errOut)
		}
	}
	// a shipper that names no stream asks of CORDON_EVENTS, which it may
	// not: ship says so, and where to ship
	if code, out, errOut := cordon("ship", "--nats", as("shipper"), "--state", filepath.Join(t.TempDir(), "default.json"), filepath.Join(sample, "proxy")); code == 0 ||
		!strings.Contains(errOut, "this user may not ask of it") || !strings.Contains(errOut, "shippers ship to CORDON_EVIDENCE") {
		t.Errorf("ship as shipper to the default stream: exit %d\n%s%s", code, out, errOut)
	}
	// the events' stream takes nothing published: ship says where to
	if code, out, errOut := cordon("ship", "--nats", as("operator"), "--state", filepath.Join(t.TempDir(), "op.json"), filepath.Join(sample, "ledger.jsonl")); code == 0 ||
		!strings.Contains(errOut, "takes no subject: it sources CORDON_EVIDENCE, CORDON_LEDGER") {
		t.Errorf("ship to the events' stream: exit %d\n%s%s", code, out, errOut)
	}
	// no role but the ledger's may publish records in the ledger's format:
	// a session's end there is the harness's kill
	ledgerLine, err := os.ReadFile(filepath.Join(sample, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(ledgerLine), "\n")
	forged, data := forgedKill(t)
	for _, c := range []struct{ user, subject, data string }{
		{"shipper", fleet.EventSubject(forged.Source, forged.Format), string(data)},
		{"shipper", "cordon.events.proxy.cordon-ledger", string(data)},
		{"shipper", fleet.RawSubject("cordon-ledger"), first},
		{"sensor", fleet.RawSubject("cordon-ledger"), first},
		{"ledger", "cordon.events.proxy.squid", `{}`},
	} {
		nc := connect(c.user)
		if err := nc.Publish(c.subject, []byte(c.data)); err != nil {
			t.Fatal(err)
		}
		nc.Flush()
		if err := nc.LastError(); err == nil || !strings.Contains(err.Error(), "ermissions") {
			t.Errorf("%s published on %s: %v", c.user, c.subject, err)
		}
	}
	if n := sourced(); n != shipped {
		t.Errorf("forbidden publishes reached the streams: %d messages, %d shipped", n, shipped)
	}
	since := "--since=2000-01-01T00:00:00Z"
	if code, out, errOut := cordon("pull", "--nats", as("shipper"), "--agent", "agent-40", since, "--incident", filepath.Join(t.TempDir(), "ws")); code == 0 {
		t.Errorf("a shipper read the stream:\n%s%s", out, errOut)
	}

	// a sensor's raw record is taken; a sensor reads nothing
	sensor := connect("sensor")
	falco, err := os.ReadFile(filepath.Join("..", "..", "sample-incidents", "created-workload", "sensor", "falco.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(falco), "\n")
	if err := sensor.Publish("cordon.raw.falco", []byte(line)); err != nil {
		t.Fatal(err)
	}
	sensor.Flush()
	waitFor(t, "the sensor's record on the stream", func() bool { return held() == shipped+1 && sourced() == shipped+1 })
	if _, err := sensor.SubscribeSync("cordon.>"); err == nil {
		sensor.Flush()
		if err := sensor.LastError(); err == nil || !strings.Contains(err.Error(), "ermissions") {
			t.Errorf("a sensor subscribed to the evidence: %v", err)
		}
	}

	// a watcher publishes findings; it cannot write evidence or delete the stream
	wnc, wjs, err := fleet.Connect(as("watcher"), "watcher", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer wnc.Close()
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- watch.RunWorker(wctx, wjs, watch.WorkerConfig{Config: watch.Config{Durable: "perm", Lateness: time.Second, Idle: 300 * time.Millisecond},
			Worker: "w1", Partitions: 1, Lease: time.Second})
	}()
	waitFor(t, "findings and holdings from the watcher", func() bool {
		st, err := adminJS.Stream(ctx, watch.DefaultFindingsStream)
		if err != nil {
			return false
		}
		info, err := st.Info(ctx)
		if err != nil || info.State.Msgs == 0 {
			return false
		}
		kv, err := adminJS.KeyValue(ctx, watch.HoldingsBucket(watch.DefaultFindingsStream))
		if err != nil {
			return false
		}
		keys, err := kv.Keys(ctx)
		return err == nil && len(keys) > 0
	})
	stop()
	if err := <-done; err != nil {
		t.Fatalf("watcher: %v", err)
	}
	if err := wnc.LastError(); err != nil {
		t.Errorf("the watcher was refused: %v", err)
	}
	// every ledger record came from the ledger's stream: none rejected
	if st, err := adminJS.Stream(ctx, watch.DefaultRejectsStream); err == nil {
		if info, err := st.Info(ctx); err != nil || info.State.Msgs != 0 {
			t.Errorf("the watcher rejected %d message(s) (%v)", info.State.Msgs, err)
		}
	}
	wnc.Publish("cordon.events.proxy.squid", []byte(`{}`))
	wnc.Flush()
	if err := wjs.DeleteStream(ctx, fleet.DefaultStream); err == nil {
		t.Error("a watcher deleted the events' stream")
	}
	serverWritesNoLedger(t, wjs, connect("operator"), forged, data)

	// a console pulls, and cannot write evidence
	ws := filepath.Join(t.TempDir(), "pulled")
	if code, out, errOut := cordon("pull", "--nats", as("console"), "--agent", "agent-40", since, "--incident", ws); code != 0 {
		t.Errorf("pull as console: exit %d\n%s%s", code, out, errOut)
	}
	// the live console (open --nats, serve --nats) reads the findings as console
	cnc, cjs, err := fleet.Connect(as("console"), "console", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cnc.Close()
	fctx, stopFollow := context.WithCancel(ctx)
	var mu sync.Mutex
	var got int
	var status string
	go watch.FollowFindings(fctx, cjs, watch.DefaultFindingsStream, func(m watch.Message) {
		mu.Lock()
		defer mu.Unlock()
		got++
	}, func(s string) {
		mu.Lock()
		defer mu.Unlock()
		status = s
	})
	waitFor(t, "the live console to read the watcher's findings as console", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return got > 0 && status == ""
	})
	stopFollow()
	// and what each agent holds, which the watcher put beside them
	hctx, stopHoldings := context.WithCancel(ctx)
	holds := map[string]watch.Holding{}
	status = "not yet"
	go watch.FollowHoldings(hctx, cjs, watch.DefaultFindingsStream, func(h watch.Holding) {
		mu.Lock()
		defer mu.Unlock()
		holds[h.Agent] = h
	}, func(s string) {
		mu.Lock()
		defer mu.Unlock()
		status = s
	})
	waitFor(t, "the live console to read the agents' holdings as console", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(holds) > 0 && status == ""
	})
	stopHoldings()
	if kv, err := cjs.KeyValue(ctx, watch.HoldingsBucket(watch.DefaultFindingsStream)); err != nil {
		t.Errorf("holdings bucket as console: %v", err)
	} else if _, err := kv.Put(ctx, "agent-40", []byte(`{"agent":"agent-40"}`)); err == nil {
		t.Error("a console wrote an agent's holding")
	}

	console := connect("console")
	console.Publish("cordon.events.proxy.squid", []byte(`{}`))
	console.Publish("cordon.raw.squid", []byte("1793786475.856 1 10.0.6.21 TCP_TUNNEL/200 1 CONNECT x:443 - HIER_DIRECT/1.2.3.4 -"))
	console.Flush()
	time.Sleep(200 * time.Millisecond)
	if n := caughtUp("the events' stream to hold its sources' messages"); n != shipped+1 {
		t.Errorf("the stream holds %d messages, want %d: a watcher or a console wrote evidence", n, shipped+1)
	}
}

// busInit makes the three streams with cordon bus init, twice: the
// second finds them as documented.
func busInit(t *testing.T, as func(string) string) {
	t.Helper()
	args := []string{"bus", "init", "--evidence", as("evidence-operator"), "--ledger", as("ledger-operator"), "--events", as("operator")}
	for _, want := range []string{"made", "there already, its subjects, sources and ledger's stream as documented"} {
		code, out, errOut := cordon(args...)
		if code != 0 || strings.Count(out, want) != 3 {
			t.Fatalf("bus init: exit %d, want three %q\n%s%s", code, want, out, errOut)
		}
	}
	// one account's operator for two streams: refused before anything is
	// made, since one account holding the events' stream and a source
	// of it is the one account's layout again
	code, out, errOut := cordon("bus", "init", "--evidence", as("evidence-operator"), "--ledger", as("operator"), "--events", as("operator"))
	if code == 0 || !strings.Contains(errOut, "the streams of CORDON_LEDGER and CORDON_EVENTS would both be in account CORDON") || out != "" {
		t.Errorf("bus init with two streams in one account: exit %d\n%s%s", code, out, errOut)
	}
}

// serverWritesNoLedger has the watcher (whose role may create streams
// and consumers) make the server publish a forged kill on the ledger's
// subjects, by a stream's republish and by a push consumer's deliver
// subject. The operator sees each arrive on the subject, so the server
// did publish it; the events' stream, which takes no subject, does not
// take it (held before and after, by the caller).
func serverWritesNoLedger(t *testing.T, wjs jetstream.JetStream, operator *nats.Conn, forged evidence.Event, data []byte) {
	t.Helper()
	ctx := context.Background()
	events := fleet.EventSubject(forged.Source, forged.Format)
	before := fleettest.Messages(t, wjs, fleet.DefaultStream)
	sub, err := operator.SubscribeSync(events)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := operator.SubscribeSync(fleet.RawSubject("cordon-ledger"))
	if err != nil {
		t.Fatal(err)
	}
	operator.Flush()
	trap, err := wjs.CreateStream(ctx, jetstream.StreamConfig{Name: "TRAP", Subjects: []string{"$KV.trap.>"},
		RePublish: &jetstream.RePublish{Source: "$KV.trap.kill", Destination: events}})
	if err != nil {
		t.Fatalf("the watcher made a stream of its own: %v", err)
	}
	if _, err := trap.CreatePushConsumer(ctx, jetstream.ConsumerConfig{Name: "trap", DeliverSubject: fleet.RawSubject("cordon-ledger")}); err != nil {
		t.Fatalf("the watcher made a push consumer: %v", err)
	}
	if _, err := wjs.Publish(ctx, "$KV.trap.kill", data); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*nats.Subscription{sub, raw} {
		m, err := s.NextMsg(5 * time.Second)
		if err != nil {
			t.Fatalf("the server published nothing on %s: %v", s.Subject, err)
		}
		if string(m.Data) != string(data) {
			t.Fatalf("on %s: %s", s.Subject, m.Data)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if after := fleettest.Messages(t, wjs, fleet.DefaultStream); after != before {
		t.Errorf("the server's publish on the ledger's subjects reached the events' stream: %d messages, %d before", after, before)
	}
	if err := wjs.DeleteStream(ctx, "TRAP"); err == nil {
		t.Error("a watcher deleted a stream")
	}
}

// A watcher refuses an events' stream that names a ledger's stream but
// takes subjects of its own, where a record on the ledger's subject need
// not be the gateway's.
func TestWatchRefusesALedgerStreamNotSourced(t *testing.T) {
	s := fleettest.Server(t)
	nc, js, err := fleet.Connect(s.ClientURL(), "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	st, err := fleet.EnsureStream(ctx, js, fleet.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cordon("bus", "check", "--nats", s.ClientURL())
	if code != 0 || !strings.Contains(out, "takes cordon.events.>, cordon.raw.>") || !strings.Contains(out, "ledger records: by their subject alone") {
		t.Errorf("bus check of one account's stream: exit %d\n%s%s", code, out, errOut)
	}
	cfg := st.CachedInfo().Config
	cfg.Metadata = map[string]string{fleet.LedgerMetadata: "CORDON_LEDGER"}
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cordon("watch", "--nats", s.ClientURL())
	if code == 0 || !strings.Contains(errOut, "takes subjects") || !strings.Contains(errOut, "cordon-events.json") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cordon("bus", "check", "--nats", s.ClientURL())
	if code == 0 || !strings.Contains(out, "ledger records: refused by every reader") || !strings.Contains(errOut, "takes subjects") {
		t.Errorf("bus check of a stream naming a ledger's stream it cannot vouch for: exit %d\n%s%s", code, out, errOut)
	}
}

// forgedKill is a ledger session's end, killed, as a shipper of the
// ledger would publish it.
func forgedKill(t *testing.T) (evidence.Event, []byte) {
	t.Helper()
	ev := evidence.Event{ID: "f0f0f0f0f0f0f0f0", Time: time.Date(2026, 8, 11, 10, 0, 0, 0, time.UTC), Source: evidence.SourceLedger,
		Format: "cordon-ledger", Kind: evidence.KindSessionEnd, Agent: "agent-40", Session: "s-400", Decision: "killed",
		Message: "session end: killed", Raw: `{"v":1,"type":"session_end","agent":"agent-40","session":"s-400","reason":"killed"}`}
	m, err := fleet.Encode(&ev)
	if err != nil {
		t.Fatal(err)
	}
	return ev, m.Data
}
