package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// falcoLine is line n (1-based) of a sample incident's Falco alerts.
func falcoLine(t *testing.T, n int) (path string, line []byte) {
	t.Helper()
	path = filepath.Join("..", "sample-incidents", "created-workload", "sensor", "falco.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	return path, lines[n-1]
}

// sameBut compares two events field by field, but for the fields named.
func sameBut(t *testing.T, got, want evidence.Event, except ...string) {
	t.Helper()
	var g, w map[string]any
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	json.Unmarshal(gj, &g)
	json.Unmarshal(wj, &w)
	for _, k := range except {
		delete(g, k)
		delete(w, k)
	}
	gj, _ = json.Marshal(g)
	wj, _ = json.Marshal(w)
	if !bytes.Equal(gj, wj) {
		t.Fatalf("events differ (but for %v):\n got %s\nwant %s", except, gj, wj)
	}
}

func TestRawFalcoOnTheBusIsTheEventFileIngestMakes(t *testing.T) {
	b := newBus(t, StreamConfig{})
	path, line := falcoLine(t, 5)
	// the record alone in a file: ingest gives it the id a message gets
	alone := filepath.Join(t.TempDir(), "falco.jsonl")
	if err := os.WriteFile(alone, append(bytes.Clone(line), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	one := ingested(t, alone)
	all := ingested(t, path)
	if len(one) != 1 {
		t.Fatalf("ingest made %d events of one Falco alert", len(one))
	}
	// published twice, as a sensor that retried would
	for range 2 {
		if err := b.nc.Publish(RawSubject("falco"), line); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	// a plain publish is stored after the flush returns: wait for both
	waitStored(t, b, 2)
	got, stats := b.read(t, ReaderConfig{Durable: "raw"})
	if len(got) != 1 || stats.Duplicates != 1 {
		t.Fatalf("delivered %d events (%d dropped as duplicates), want 1 and 1", len(got), stats.Duplicates)
	}
	for id, ds := range got {
		d := ds[0]
		if !d.Raw || d.Subject != "cordon.raw.falco" || d.Event.Origin != "nats:"+DefaultStream+":1:1" {
			t.Fatalf("delivery %+v", d)
		}
		for _, w := range one {
			if id != w.ID {
				t.Fatalf("id %s, file ingest's %s", id, w.ID)
			}
			sameBut(t, d.Event, w, "origin")
		}
		// the same alert read as line 5 of the sensor's file: the same
		// event but for where it came from
		var at5 *evidence.Event
		for _, ev := range all {
			if strings.HasSuffix(ev.Origin, ":5") {
				at5 = &ev
			}
		}
		if at5 == nil {
			t.Fatal("file ingest made no event of line 5")
		}
		sameBut(t, d.Event, *at5, "id", "origin")
	}
}

func TestRawRouteReadsFalcosidekickSubjects(t *testing.T) {
	b := newBus(t, StreamConfig{Subjects: []string{"falco.>"}})
	_, line := falcoLine(t, 3)
	// Falcosidekick adds a uuid to the alert and publishes it to
	// falco.<priority>.<rule slug>
	var alert map[string]any
	if err := json.Unmarshal(line, &alert); err != nil {
		t.Fatal(err)
	}
	alert["uuid"] = "4b8dff53-f3c5-4e28-bddb-0c7d4e6d2a10"
	payload, _ := json.Marshal(alert)
	if err := b.nc.Publish("falco.error.package_management_process_launched_in_container", payload); err != nil {
		t.Fatal(err)
	}
	b.nc.Flush()
	waitStored(t, b, 1)
	var rejects []MessageReject
	got, _ := b.read(t, ReaderConfig{Durable: "sidekick", Routes: []Route{{Subject: "falco.>", Format: "falco"}},
		Reject: func(m MessageReject) { rejects = append(rejects, m) }})
	if len(got) != 1 || len(rejects) != 0 {
		t.Fatalf("delivered %d events, rejected %+v", len(got), rejects)
	}
	for _, ds := range got {
		if ev := ds[0].Event; ev.Format != "falco" || ev.Source != evidence.SourceSensor || ev.Raw != string(payload) {
			t.Fatalf("event %+v", ev)
		}
	}
}

func TestReaderRejectsWhatDoesNotReadAndGoesOn(t *testing.T) {
	b := newBus(t, StreamConfig{})
	good := testEvent()
	gm, _ := Encode(&good)
	wrongSubject := testEvent()
	wrongSubject.ID = "1111111111111111"
	wm, _ := Encode(&wrongSubject)
	wm.Subject = "cordon.events.ledger.cordon-ledger"
	for _, m := range []struct{ subject, data string }{
		{"cordon.events.sensor.falco", "{not json \x1b[2J"},
		{wm.Subject, string(wm.Data)},
		{"cordon.raw.no-such-format", "x"},
		{"cordon.raw.a%2", "x"},
		{"cordon.raw.falco", "this is no falco alert"},
	} {
		if err := b.nc.Publish(m.subject, []byte(m.data)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.js.PublishMsg(context.Background(), gm); err != nil {
		t.Fatal(err)
	}
	var rejects []MessageReject
	got, stats := b.read(t, ReaderConfig{Durable: "rejects", Reject: func(m MessageReject) { rejects = append(rejects, m) }})
	if len(got) != 1 || got[good.ID] == nil {
		t.Fatalf("delivered %v, want only %s", got, good.ID)
	}
	wantOrigins := []string{"nats:CORDON_EVENTS:1", "nats:CORDON_EVENTS:2", "nats:CORDON_EVENTS:3", "nats:CORDON_EVENTS:4", "nats:CORDON_EVENTS:5:1"}
	if len(rejects) != len(wantOrigins) || stats.Rejected != int64(len(wantOrigins)) {
		t.Fatalf("rejects %+v", rejects)
	}
	for i, r := range rejects {
		if r.Origin != wantOrigins[i] || r.Reason == "" {
			t.Errorf("reject %d: origin %q reason %q, want origin %q and a reason", i, r.Origin, r.Reason, wantOrigins[i])
		}
	}
	if !strings.Contains(rejects[2].Reason, "unknown format") {
		t.Errorf("unknown format rejected for %q", rejects[2].Reason)
	}
}

func TestReaderGivesBackWhatItsHandlerFailedOn(t *testing.T) {
	b := newBus(t, StreamConfig{})
	dir := incidentFiles(t, "created-workload")
	want := ingested(t, dir)
	b.ship(t, filepath.Join(t.TempDir(), "s.json"), []string{dir}, ShipOptions{})

	ctx := context.Background()
	d := NewDedup(DedupConfig{})
	r, err := NewReader(ctx, b.js, ReaderConfig{Durable: "fails", Dedup: d, AckWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("engine full")
	var first []string
	err = r.Run(ctx, func(_ context.Context, dl Delivery) error {
		if len(first) == 3 {
			return boom
		}
		first = append(first, dl.Event.ID)
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Run returned %v, want the handler's error", err)
	}
	// the same consumer and set again: the failed event comes back, the
	// three handled do not
	got, _ := b.read(t, ReaderConfig{Durable: "fails", Dedup: d, AckWait: time.Second})
	for _, id := range first {
		got[id] = append(got[id], Delivery{})
	}
	once(t, got, want)
}

func TestSavedDedupDropsWhatWasHandledBeforeARestart(t *testing.T) {
	b := newBus(t, StreamConfig{})
	dir := incidentFiles(t, "credential-theft")
	want := ingested(t, dir)
	b.ship(t, filepath.Join(t.TempDir(), "s.json"), []string{dir}, ShipOptions{})

	d := NewDedup(DedupConfig{})
	got, _ := b.read(t, ReaderConfig{Durable: "first", Dedup: d})
	once(t, got, want)
	var saved bytes.Buffer
	if _, err := d.WriteTo(&saved); err != nil {
		t.Fatal(err)
	}
	back, err := ReadDedup(&saved)
	if err != nil {
		t.Fatal(err)
	}
	// a consumer that starts over (its acks lost with the server's state,
	// say) with the set kept beside the handler's checkpoint
	again, stats := b.read(t, ReaderConfig{Durable: "second", Dedup: back})
	if len(again) != 0 || stats.Duplicates != int64(len(want)) {
		t.Fatalf("after the restart %d events were delivered again, %d dropped; want 0 and %d", len(again), stats.Duplicates, len(want))
	}
}

func TestShipFollowSendsWhatIsAppended(t *testing.T) {
	b := newBus(t, StreamConfig{})
	dir := t.TempDir()
	path := filepath.Join(dir, "access.log")
	squidLog(t, path, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := OpenState(filepath.Join(dir, "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var mu sync.Mutex
	var read int
	done := make(chan error, 1)
	go func() {
		_, err := Ship(ctx, NewPublisher(b.js, 0), st, []string{path}, ShipOptions{Follow: true, Interval: 10 * time.Millisecond,
			Round: func(rs []ingestResult) {
				mu.Lock()
				defer mu.Unlock()
				for _, r := range rs {
					read += r.Events
				}
			}})
		done <- err
	}()
	waitStream := func(n uint64) {
		deadline := time.Now().Add(20 * time.Second)
		for b.messages(t, DefaultStream) < n {
			if time.Now().After(deadline) {
				t.Fatalf("stream has %d messages after 20s, want %d", b.messages(t, DefaultStream), n)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitStream(10)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("1793786999.000   100 10.0.6.21 TCP_TUNNEL/200 5 CONNECT late.example.org:443 px-s701 HIER_DIRECT/151.101.0.223 -\n")
	f.Close()
	waitStream(11)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("follow ended with %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := b.messages(t, DefaultStream); n != 11 || read != 11 {
		t.Fatalf("stream holds %d, rounds read %d; want 11 each", n, read)
	}
}

// waitStored waits until the events' stream holds n messages.
func waitStored(t *testing.T, b *bus, n uint64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := b.js.Stream(context.Background(), DefaultStream)
		if err != nil {
			t.Fatal(err)
		}
		info, err := st.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stream holds %d messages after 10s, want %d", info.State.Msgs, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
