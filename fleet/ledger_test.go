package fleet

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// On the documented bus, a reader told the ledger's stream takes records
// in the ledger's format from it alone: the gateway's ledger is read, and
// the same format put into the other evidence's stream (by its operator,
// as a shipper would if its permissions were wrong), normalized or raw,
// is rejected with where it came from. Told nothing, the reader takes
// them all (the subject alone), which is what the check is for.
func TestLedgerRecordsOnlyFromTheLedgersStream(t *testing.T) {
	sb := fleettest.SecuredBus(t)
	ctx := context.Background()
	dir := incidentFiles(t, "credential-theft")
	ledgerBus := connectBus(t, sb.URL("ledger"), StreamConfig{Name: "CORDON_LEDGER"})
	res := ledgerBus.ship(t, filepath.Join(t.TempDir(), "ledger.json"), []string{filepath.Join(dir, "ledger.jsonl")}, ShipOptions{})
	if res.Acked == 0 {
		t.Fatal("the ledger shipped nothing")
	}
	// a record in the ledger's format on the other evidence's stream
	onc, ojs, err := Connect(sb.URL("evidence-operator"), "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer onc.Close()
	forged := evidence.Event{ID: "f0f0f0f0f0f0f0f0", Time: time.Date(2026, 8, 11, 10, 0, 0, 0, time.UTC), Source: evidence.SourceLedger,
		Format: evidence.LedgerFormat, Kind: evidence.KindSessionEnd, Agent: "agent-12", Session: "s-1", Decision: "killed", Message: "session end: killed",
		Raw: `{"v":1,"type":"session_end","agent":"agent-12","session":"s-1","reason":"killed"}`}
	m, err := Encode(&forged)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ojs.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	line, err := os.ReadFile(filepath.Join(dir, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(line), "\n")
	if _, err := ojs.Publish(ctx, RawSubject(evidence.LedgerFormat), []byte(first)); err != nil {
		t.Fatal(err)
	}
	enc, ejs, err := Connect(sb.URL("operator"), "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	events := &bus{nc: enc, js: ejs}
	want := uint64(res.Acked) + 2
	for deadline := time.Now().Add(20 * time.Second); events.messages(t, DefaultStream) != want; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the events' stream holds %d messages, want %d", events.messages(t, DefaultStream), want)
		}
	}

	var rejects []MessageReject
	got, stats := events.read(t, ReaderConfig{Durable: "ledger-checked",
		Reject: func(m MessageReject) { rejects = append(rejects, m) }})
	if int64(len(got)) != res.Acked || stats.Rejected != 2 || len(rejects) != 2 {
		t.Fatalf("with the ledger's stream named: %d events delivered (%d shipped by the ledger), %d rejected: %+v", len(got), res.Acked, stats.Rejected, rejects)
	}
	if _, ok := got[forged.ID]; ok {
		t.Error("the forged kill was delivered")
	}
	for _, r := range rejects {
		if !strings.Contains(r.Reason, "sourced from CORDON_EVIDENCE, not from the ledger's stream CORDON_LEDGER") {
			t.Errorf("rejected on %s for %q", r.Subject, r.Reason)
		}
	}
	// on a stream of the same sources that names no ledger's stream, the
	// subject alone decides: the forged kill is taken, and the raw copy
	// of the ledger's first line is its event again (dropped as a copy)
	bare := events.stream(t, DefaultStream)
	bare.Name, bare.Metadata = "BY_SUBJECT", nil
	if _, err := ejs.CreateStream(ctx, bare); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); events.messages(t, "BY_SUBJECT") != want; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("BY_SUBJECT holds %d messages, want %d", events.messages(t, "BY_SUBJECT"), want)
		}
	}
	got, stats = events.read(t, ReaderConfig{Stream: "BY_SUBJECT", Durable: "by-subject"})
	if int64(len(got)) != res.Acked+1 || stats.Rejected != 0 || stats.Duplicates != 1 {
		t.Errorf("by subject alone: %d events, %d rejected, %d copies; want %d, 0, 1", len(got), stats.Rejected, stats.Duplicates, res.Acked+1)
	}
	if _, ok := got[forged.ID]; !ok {
		t.Error("by subject alone the forged kill was not delivered: the check above proves nothing")
	}
	pullRejects(t, ejs, ojs, forged)
	if l, err := LedgerStreamOf(ctx, events.js, DefaultStream); l != "CORDON_LEDGER" || err != nil {
		t.Errorf("the documented events' stream names %q (%v)", l, err)
	}
	other := events.stream(t, "BY_SUBJECT")
	other.Metadata = map[string]string{LedgerMetadata: "CORDON_OTHER"}
	if _, err := ejs.UpdateStream(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, err := NewReader(ctx, ejs, ReaderConfig{Stream: "BY_SUBJECT", Durable: "other"}); err == nil || !strings.Contains(err.Error(), "does not source it") {
		t.Errorf("a stream naming a ledger's stream it does not source: %v", err)
	}
}

// pullRejects pulls forged's agent and follows: the forged kill on the
// stream, and one more put there while following, are rejected and not
// written to the case.
func pullRejects(t *testing.T, ejs, ojs jetstream.JetStream, forged evidence.Event) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var out bytes.Buffer
	var rejected []string
	w := writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(b)
	})
	done := make(chan error, 1)
	pulled := make(chan struct{})
	var once sync.Once
	go func() {
		_, err := PullFollow(ctx, ejs, PullConfig{Agents: []string{forged.Agent}, Reject: func(m MessageReject) {
			mu.Lock()
			defer mu.Unlock()
			rejected = append(rejected, m.Reason)
		}}, w, func() error { once.Do(func() { close(pulled) }); return nil })
		done <- err
	}()
	select {
	case <-pulled:
	case err := <-done:
		t.Fatalf("pull: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the pull did not end its first part in 20s")
	}
	later := forged
	later.ID, later.Session = "f1f1f1f1f1f1f1f1", "s-2"
	m, err := Encode(&later)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ojs.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(rejected)
		mu.Unlock()
		if n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d rejected by the pull and its follow, want 3 (the kill, the raw line, the later kill)", n)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("pull: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if out.Len() == 0 {
		t.Fatal("the pull wrote nothing of the agent")
	}
	for _, id := range []string{forged.ID, later.ID} {
		if strings.Contains(out.String(), id) {
			t.Errorf("the pull wrote the forged kill %s", id)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// A reader refuses an events' stream that names a ledger's stream but
// takes subjects of its own: anyone who may publish there, or make the
// server publish there, could put a record on the ledger's subject.
func TestLedgerStreamRefusesAStreamWithSubjects(t *testing.T) {
	b := newBus(t, StreamConfig{})
	ctx := context.Background()
	cfg := b.stream(t, DefaultStream)
	cfg.Metadata = map[string]string{LedgerMetadata: "CORDON_LEDGER"}
	if _, err := b.js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	_, err := NewReader(ctx, b.js, ReaderConfig{Durable: "x"})
	if err == nil || !strings.Contains(err.Error(), "takes subjects") {
		t.Fatalf("a reader on a stream with subjects: %v", err)
	}
	if err := Replay(ctx, b.js, ReaderConfig{}, 1, func(Delivery) error { return nil }); err == nil || !strings.Contains(err.Error(), "takes subjects") {
		t.Fatalf("a replay of a stream with subjects: %v", err)
	}
}

// SourcedFrom reads the header the server sets on a sourced message.
func TestSourcedFrom(t *testing.T) {
	for v, want := range map[string]string{
		"CORDON_LEDGER:5pVfN7gV 1 > > cordon.events.ledger.cordon-ledger": "CORDON_LEDGER",
		"ORDERS 12 > > orders.new":                                        "ORDERS",
		"":                                                                "",
	} {
		h := nats.Header{}
		if v != "" {
			h.Set("Nats-Stream-Source", v)
		}
		if got := SourcedFrom(h); got != want {
			t.Errorf("SourcedFrom(%q) = %q, want %q", v, got, want)
		}
	}
}

// MakeBusStream makes a documented stream, finds it again as documented,
// and refuses one of that name with other subjects rather than change it.
func TestMakeBusStream(t *testing.T) {
	nc, js, err := Connect(fleettest.Server(t).ClientURL(), "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	b := &bus{nc: nc, js: js}
	ctx := context.Background()
	streams, err := BusStreams(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(streams) != 3 || streams[2].Config.Name != DefaultStream || streams[2].Config.Metadata[LedgerMetadata] != streams[1].Config.Name {
		t.Fatalf("the documented streams: %+v", streams)
	}
	if made, err := MakeBusStream(ctx, b.js, streams[0]); !made || err != nil {
		t.Fatalf("made %v: %v", made, err)
	}
	if made, err := MakeBusStream(ctx, b.js, streams[0]); made || err != nil {
		t.Fatalf("again: made %v: %v", made, err)
	}
	// the events' stream as one account makes it: subjects of its own
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: DefaultStream, Subjects: []string{"other.>"}}); err != nil {
		t.Fatal(err)
	}
	_, err = MakeBusStream(ctx, b.js, streams[2])
	if err == nil || !strings.Contains(err.Error(), "stream CORDON_EVENTS is there with subjects [other.>], not []") {
		t.Fatalf("a stream of that name with subjects: %v", err)
	}
	if got := b.stream(t, DefaultStream); len(got.Subjects) != 1 || len(got.Sources) != 0 {
		t.Errorf("the stream there was changed: %+v", got)
	}
}
