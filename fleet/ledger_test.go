package fleet

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/nats-io/nats.go"
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
		Format: LedgerFormat, Kind: evidence.KindSessionEnd, Agent: "agent-12", Session: "s-1", Decision: "killed", Message: "session end: killed",
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
	if _, err := ojs.Publish(ctx, RawSubject(LedgerFormat), []byte(first)); err != nil {
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
	got, stats := events.read(t, ReaderConfig{Durable: "ledger-checked", LedgerStream: "CORDON_LEDGER",
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
	// by subject alone the forged kill is taken, and the raw copy of the
	// ledger's first line is its event again (dropped as a copy)
	got, stats = events.read(t, ReaderConfig{Durable: "by-subject"})
	if int64(len(got)) != res.Acked+1 || stats.Rejected != 0 || stats.Duplicates != 1 {
		t.Errorf("by subject alone: %d events, %d rejected, %d copies; want %d, 0, 1", len(got), stats.Rejected, stats.Duplicates, res.Acked+1)
	}
	if _, ok := got[forged.ID]; !ok {
		t.Error("by subject alone the forged kill was not delivered: the check above proves nothing")
	}
	if err := CheckLedgerStream(ctx, events.js, DefaultStream, "CORDON_LEDGER"); err != nil {
		t.Errorf("the documented events' stream: %v", err)
	}
	if err := CheckLedgerStream(ctx, events.js, DefaultStream, "CORDON_OTHER"); err == nil || !strings.Contains(err.Error(), "does not source it") {
		t.Errorf("a stream not sourced: %v", err)
	}
}

// A reader told the ledger's stream refuses an events' stream that takes
// subjects of its own: anyone who may publish there, or make the server
// publish there, could put a record on the ledger's subject.
func TestLedgerStreamRefusesAStreamWithSubjects(t *testing.T) {
	b := newBus(t, StreamConfig{})
	_, err := NewReader(context.Background(), b.js, ReaderConfig{Durable: "x", LedgerStream: "CORDON_LEDGER"})
	if err == nil || !strings.Contains(err.Error(), "takes subjects") {
		t.Fatalf("a reader on a stream with subjects: %v", err)
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
