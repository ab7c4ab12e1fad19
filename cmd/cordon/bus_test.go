package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/cordon-ir/cordon/watch"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// The permissions docs/nats/cordon-bus.conf documents, on a server started
// with that file: a shipper ships and cannot read, a sensor publishes raw
// records and cannot read, a watcher publishes findings and can neither
// write evidence nor delete the stream, a console pulls and writes nothing.
func TestBusPermissions(t *testing.T) {
	for _, r := range []string{"shipper", "ledger", "sensor", "watcher", "console"} {
		t.Setenv("CORDON_"+strings.ToUpper(r)+"_PASSWORD", "pw-"+r)
	}
	conf, err := server.ProcessConfigFile(filepath.Join("..", "..", "docs", "nats", "cordon-bus.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if len(conf.Users) != 5 {
		t.Fatalf("%d users in the documented configuration, want 5", len(conf.Users))
	}
	s := fleettest.ServerWith(t, func(o *server.Options) {
		// the operator, who makes the stream, beside the documented roles
		o.Users = append(conf.Users, &server.User{Username: "admin", Password: "pw-admin"})
	})
	hostport := strings.TrimPrefix(s.ClientURL(), "nats://")
	as := func(user string) string { return "nats://" + user + ":pw-" + user + "@" + hostport }
	connect := func(user string) *nats.Conn {
		nc, err := nats.Connect(as(user))
		if err != nil {
			t.Fatalf("%s: %v", user, err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	adminNC, adminJS, err := fleet.Connect(as("admin"), "admin", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer adminNC.Close()
	ctx := context.Background()
	if _, err := fleet.EnsureStream(ctx, adminJS, fleet.StreamConfig{Subjects: []string{"falco.>"}}); err != nil {
		t.Fatal(err)
	}
	held := func() uint64 { return fleettest.Messages(t, adminJS, fleet.DefaultStream) }

	// the proxy's and the sensors' logs go as shipper, the gateway's
	// ledger as ledger
	sample := filepath.Join("..", "..", "sample-incidents", "shared-volume-token")
	code, out, errOut := cordon("ship", "--nats", as("shipper"), "--state", filepath.Join(t.TempDir(), "ship.json"),
		filepath.Join(sample, "proxy"), filepath.Join(sample, "sensor"))
	if code != 0 {
		t.Fatalf("ship as shipper: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cordon("ship", "--nats", as("ledger"), "--state", filepath.Join(t.TempDir(), "ledger.json"), filepath.Join(sample, "ledger.jsonl"))
	if code != 0 {
		t.Fatalf("ship the ledger as ledger: exit %d\n%s%s", code, out, errOut)
	}
	shipped := held()
	if shipped == 0 {
		t.Fatal("nothing shipped")
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
	if n := held(); n != shipped {
		t.Errorf("forbidden publishes reached the stream: %d messages, %d shipped", n, shipped)
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
	waitFor(t, "the sensor's record on the stream", func() bool { return held() == shipped+1 })
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
	wnc.Publish("cordon.events.proxy.squid", []byte(`{}`))
	wnc.Flush()
	if err := wjs.DeleteStream(ctx, fleet.DefaultStream); err == nil {
		t.Error("a watcher deleted the events' stream")
	}

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
	if n := held(); n != shipped+1 {
		t.Errorf("the stream holds %d messages, want %d: a watcher or a console wrote evidence", n, shipped+1)
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
