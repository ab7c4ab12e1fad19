package fleet

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/ingest/parse"
)

func TestShipSendsWhatIngestReads(t *testing.T) {
	b := newBus(t, StreamConfig{})
	dir := incidentFiles(t, "created-workload")
	want := ingested(t, dir)
	state := filepath.Join(t.TempDir(), "ship.json")

	res := b.ship(t, state, []string{dir}, ShipOptions{})
	if res.Read != int64(len(want)) || res.Acked != res.Read || res.Duplicates != 0 {
		t.Fatalf("read %d, acked %d (%d duplicates); ingest reads %d events", res.Read, res.Acked, res.Duplicates, len(want))
	}
	if n := b.messages(t, DefaultStream); n != uint64(len(want)) {
		t.Fatalf("stream holds %d messages, want %d", n, len(want))
	}
	got, _ := b.read(t, ReaderConfig{Durable: "check"})
	once(t, got, want)
	for id, ds := range got {
		d, w := ds[0], want[id]
		if d.Subject != EventSubject(w.Source, w.Format) {
			t.Errorf("event %s on %s, want %s", id, d.Subject, EventSubject(w.Source, w.Format))
		}
		if d.Raw {
			t.Errorf("event %s marked raw", id)
		}
		gj, _ := json.Marshal(d.Event)
		wj, _ := json.Marshal(w)
		if string(gj) != string(wj) {
			t.Errorf("event %s read back differs from ingest's:\n got %s\nwant %s", id, gj, wj)
		}
	}

	// The same command again resumes at the checkpoints: nothing to send.
	again := b.ship(t, state, []string{dir}, ShipOptions{})
	if again.Read != 0 || again.Acked != 0 {
		t.Fatalf("second ship read %d and sent %d events, want none", again.Read, again.Acked)
	}
	if n := b.messages(t, DefaultStream); n != uint64(len(want)) {
		t.Fatalf("stream holds %d messages after a second ship, want %d", n, len(want))
	}
}

func TestShipWithLostCheckpointsWithinTheWindowStoresNothingTwice(t *testing.T) {
	b := newBus(t, StreamConfig{})
	dir := incidentFiles(t, "credential-theft")
	want := ingested(t, dir)
	first := b.ship(t, filepath.Join(t.TempDir(), "a.json"), []string{dir}, ShipOptions{})
	if first.Acked != int64(len(want)) {
		t.Fatalf("first ship acked %d of %d events", first.Acked, len(want))
	}
	// another checkpoint file: every event is read and sent again
	second := b.ship(t, filepath.Join(t.TempDir(), "b.json"), []string{dir}, ShipOptions{})
	if second.Read != first.Read || second.Acked != first.Acked || second.Duplicates != second.Acked {
		t.Fatalf("second ship: read %d, acked %d, %d as duplicates; first acked %d", second.Read, second.Acked, second.Duplicates, first.Acked)
	}
	if n := b.messages(t, DefaultStream); n != uint64(first.Acked) {
		t.Fatalf("stream holds %d messages, want %d: its duplicate window let copies in", n, first.Acked)
	}
}

func TestReaderDropsCopiesThatCamePastTheDuplicateWindow(t *testing.T) {
	const window = 100 * time.Millisecond // the server's least
	b := newBus(t, StreamConfig{Duplicates: window})
	dir := incidentFiles(t, "credential-theft")
	want := ingested(t, dir)
	first := b.ship(t, filepath.Join(t.TempDir(), "a.json"), []string{dir}, ShipOptions{})
	// The window is the server's clock: only waiting past it lets the
	// same ids be stored again.
	time.Sleep(2 * window)
	second := b.ship(t, filepath.Join(t.TempDir(), "b.json"), []string{dir}, ShipOptions{})
	if second.Duplicates != 0 {
		t.Fatalf("the stream still took %d of the second ship as duplicates", second.Duplicates)
	}
	if n := b.messages(t, DefaultStream); n != uint64(first.Acked+second.Acked) || n != 2*uint64(len(want)) {
		t.Fatalf("stream holds %d messages, want each of %d events twice", n, len(want))
	}
	got, stats := b.read(t, ReaderConfig{Durable: "dedup"})
	once(t, got, want)
	if stats.Duplicates != int64(len(want)) {
		t.Fatalf("reader dropped %d duplicates, want %d", stats.Duplicates, len(want))
	}
}

func TestShipReportsMalformedLinesAndGoesOn(t *testing.T) {
	b := newBus(t, StreamConfig{})
	src, err := os.ReadFile(filepath.Join("..", "sample-incidents", "credential-theft", "proxy", "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	bad := "this is no squid line \x1b[2J\n"
	body := lines[0] + lines[1] + bad + strings.Join(lines[2:], "")
	path := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var rejects []parse.Reject
	res := b.ship(t, filepath.Join(t.TempDir(), "s.json"), []string{path}, ShipOptions{Reject: func(r parse.Reject) { rejects = append(rejects, r) }})
	if len(rejects) != 1 || rejects[0].Origin != path+":3" || rejects[0].Reason == "" {
		t.Fatalf("rejects %+v, want one at %s:3 with a reason", rejects, path)
	}
	if want := len(ingested(t, path)); res.Read != int64(want) || res.Acked != int64(want) || res.Rejects != 1 {
		t.Fatalf("read %d, acked %d, %d rejected; want %d and 1 rejected", res.Read, res.Acked, res.Rejects, want)
	}
}

func TestShipInterruptedKeepsTheCheckpointOfAcknowledgedBatchesOnly(t *testing.T) {
	b := newBus(t, StreamConfig{})
	dir := t.TempDir()
	path := filepath.Join(dir, "access.log")
	squidLog(t, path, 300)
	// a bad line at 150 stops the first run: its reject is written before
	// the batch around it is published, and the run's context ends there
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	lines[150] = "garbage\n"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	want := ingested(t, path)
	state := filepath.Join(dir, "ship.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, err := b.shipErr(t, ctx, state, []string{path}, ShipOptions{BatchSize: 40, Reject: func(parse.Reject) { cancel() }})
	if err == nil {
		t.Fatal("an interrupted ship reported no error")
	}
	if first.Acked == 0 || first.Acked >= int64(len(want)) {
		t.Fatalf("first run acked %d of %d events; want it stopped part way", first.Acked, len(want))
	}
	second := b.ship(t, state, []string{path}, ShipOptions{BatchSize: 40})
	if first.Acked+second.Read < int64(len(want)) || second.Read >= int64(len(want)) {
		t.Fatalf("resume read %d after %d acked, of %d: it did not resume at the checkpoint", second.Read, first.Acked, len(want))
	}
	got, _ := b.read(t, ReaderConfig{Durable: "resume"})
	once(t, got, want)
}

func TestShipSendsNoEventLargerThanTheServerTakes(t *testing.T) {
	s := fleettestServerWithPayload(t, 8<<10)
	b := connectBus(t, s, StreamConfig{})
	path := filepath.Join(t.TempDir(), "access.log")
	squidLog(t, path, 3)
	data, _ := os.ReadFile(path)
	long := "1793786480.000   100 10.0.6.21 TCP_MISS/200 10 GET http://x.example/" + strings.Repeat("a", 12<<10) + " - HIER_DIRECT/1.2.3.4 text/html\n"
	if err := os.WriteFile(path, append(data, long...), 0o644); err != nil {
		t.Fatal(err)
	}
	var rejects []parse.Reject
	res := b.ship(t, filepath.Join(t.TempDir(), "s.json"), []string{path}, ShipOptions{Reject: func(r parse.Reject) { rejects = append(rejects, r) }})
	if res.Read != 4 || res.Acked != 3 || res.Oversize != 1 {
		t.Fatalf("read %d, acked %d, %d oversize; want 4, 3, 1", res.Read, res.Acked, res.Oversize)
	}
	if len(rejects) != 1 || rejects[0].Origin != path+":4" || !strings.Contains(rejects[0].Reason, "max_payload") {
		t.Fatalf("rejects %+v, want the long line, at %s:4, for max_payload", rejects, path)
	}
}
