package watch

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// bus is a JetStream server of the test's own and a client of it, with
// the events' stream made.
func bus(t testing.TB) (string, jetstream.JetStream) {
	t.Helper()
	return busOn(t, fleettest.Server(t))
}

// smallBus is bus on a server whose max_payload is limit bytes.
func smallBus(t testing.TB, limit int32) (string, jetstream.JetStream) {
	t.Helper()
	return busOn(t, fleettest.ServerWith(t, func(o *server.Options) { o.MaxPayload = limit }))
}

func busOn(t testing.TB, s *server.Server) (string, jetstream.JetStream) {
	t.Helper()
	nc, js, err := fleet.Connect(s.ClientURL(), "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if _, err := fleet.EnsureStream(context.Background(), js, fleet.StreamConfig{}); err != nil {
		t.Fatal(err)
	}
	return s.ClientURL(), js
}

type noRejects struct{}

func (noRejects) Add([]parse.Reject) error { return nil }

// sampleEvents are a bundled sample's events as ingest reads them (and ship
// sends them): proxy and sensor events carry no agent.
func sampleEvents(t testing.TB, name string) []evidence.Event {
	t.Helper()
	files, err := ingest.Expand([]string{filepath.Join("..", "sample-incidents", name)})
	if err != nil {
		t.Fatal(err)
	}
	st := evidence.NewMemStore()
	if _, err := ingest.Run(context.Background(), files, ingest.Options{Store: st, Rejects: noRejects{}}); err != nil {
		t.Fatal(err)
	}
	h, err := st.Search(context.Background(), evidence.Request{Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	evs := h.Events
	sort.SliceStable(evs, func(i, j int) bool { return detect.Before(&evs[i], &evs[j]) })
	return evs
}

// oneShotResult is the one-shot engine's answer over evs, capability sets
// included, attributed as a workspace's ingest stores it.
func oneShotResult(t testing.TB, evs []evidence.Event) detect.Result {
	t.Helper()
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	stored := slices.Clone(evs)
	attribution.AttributeAll(stored)
	eng := detect.Engine{Rules: rules}
	res, err := eng.Scan(context.Background(), detect.NewMemSource(stored))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// oneShot is what the one-shot engine finds in evs: attribution by
// attribution.AttributeAll, as a workspace whose ingest stored it. The
// pass attributing as it reads (what the watcher does) must find the
// same; the test says so if it does not.
func oneShot(t *testing.T, evs []evidence.Event) []detect.Finding {
	t.Helper()
	ref := oneShotResult(t, evs).Findings
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	live := detect.Engine{Rules: rules, Attribute: true}
	read, err := live.Run(context.Background(), detect.NewMemSource(slices.Clone(evs)))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := summary(ref), summary(read); a != b {
		t.Fatalf("attributed at ingest and attributed as read differ:\n%s\n---\n%s", a, b)
	}
	if len(ref) == 0 {
		t.Fatal("the one-shot engine finds nothing: the comparison would prove nothing")
	}
	return ref
}

// publishEvents puts evs on the stream in the order given, as ship does.
func publishEvents(t testing.TB, js jetstream.JetStream, evs []evidence.Event) {
	t.Helper()
	ctx := context.Background()
	for i := range evs {
		m, err := fleet.Encode(&evs[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
}

// published reads the findings stream: every message, in order.
func published(t testing.TB, js jetstream.JetStream) []Message {
	t.Helper()
	ctx := context.Background()
	s, err := js.Stream(ctx, DefaultFindingsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []Message
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		raw, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		var m Message
		if err := json.Unmarshal(raw.Data, &m); err != nil {
			t.Fatal(err)
		}
		if want := Subject(m.Severity, m.Agent); raw.Subject != want {
			t.Errorf("finding %s on %s, want %s", m.ID, raw.Subject, want)
		}
		out = append(out, m)
	}
	return out
}

// fold is what a reader of the findings stream knows at its end: the last
// state of each finding not withdrawn; created counts each id's "created".
func fold(msgs []Message) (now []detect.Finding, created map[string]int) {
	byID := map[string]detect.Finding{}
	created = map[string]int{}
	for _, m := range msgs {
		switch m.Change {
		case Created:
			created[m.ID]++
			byID[m.ID] = m.Finding
		case Updated:
			byID[m.ID] = m.Finding
		case Withdrawn:
			delete(byID, m.ID)
		}
	}
	for _, f := range byID {
		now = append(now, f)
	}
	return now, created
}

// summary is findings as the comparison reads them: id, severity, agent,
// evidence ids, one line each, sorted.
func summary(fs []detect.Finding) string {
	var lines []string
	for _, f := range fs {
		lines = append(lines, f.ID+" "+f.Severity+" "+f.Detector+" "+f.Agent+" "+strings.Join(f.Events, ","))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// sameFindings fails t unless the findings the stream ends with are the
// one-shot engine's, and each was created once.
func sameFindings(t testing.TB, js jetstream.JetStream, want []detect.Finding) {
	t.Helper()
	got, created := fold(published(t, js))
	if a, b := summary(want), summary(got); a != b {
		t.Fatalf("the watcher's findings differ from the one-shot engine's:\nwant\n%s\ngot\n%s", a, b)
	}
	for id, n := range created {
		if n != 1 {
			t.Errorf("finding %s created %d times", id, n)
		}
	}
}

// watch runs a watcher of cfg until it has every message of the stream
// released and published, then stops it and returns its stats.
func watch(t testing.TB, js jetstream.JetStream, cfg Config) Stats {
	t.Helper()
	return watchWithin(t, js, cfg, 60*time.Second)
}

// watchWithin is watch, failing t unless the watcher is idle within d.
func watchWithin(t testing.TB, js jetstream.JetStream, cfg Config, d time.Duration) Stats {
	t.Helper()
	r := start(t, js, cfg)
	waitIdleWithin(t, js, r.w, r.w.cfg.Durable, r.done, d)
	return r.stop(t)
}

// started is a watcher started by start.
type started struct {
	w      *Watcher
	done   chan error
	cancel context.CancelFunc
}

// start runs a watcher of cfg on js until stop (or the test's end).
func start(t testing.TB, js jetstream.JetStream, cfg Config) *started {
	t.Helper()
	w, err := New(js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r := &started{w: w, done: make(chan error, 1), cancel: cancel}
	go func() { r.done <- w.Run(ctx) }()
	return r
}

// idle waits until the watcher has read and released everything (waitIdle).
func (r *started) idle(t testing.TB, js jetstream.JetStream) {
	t.Helper()
	waitIdle(t, js, r.w, r.w.cfg.Durable, r.done)
}

// stop stops the watcher, failing t if it ended in error, and gives its
// stats.
func (r *started) stop(t testing.TB) Stats {
	t.Helper()
	r.cancel()
	if err := <-r.done; err != nil {
		t.Fatalf("watcher: %v", err)
	}
	return r.w.Stats()
}

// waitIdle waits until the consumer has nothing pending, the watcher
// holds nothing and its verdicts' copy holds all the pass took, twice in
// a row.
func waitIdle(t testing.TB, js jetstream.JetStream, w *Watcher, durable string, done chan error) {
	t.Helper()
	waitIdleWithin(t, js, w, durable, done, 60*time.Second)
}

func waitIdleWithin(t testing.TB, js jetstream.JetStream, w *Watcher, durable string, done chan error, d time.Duration) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(d)
	calm := 0
	for calm < 2 {
		select {
		case err := <-done:
			t.Fatalf("watcher stopped: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("watcher not idle after %s: %+v", d, w.Stats())
		}
		c, err := js.Consumer(ctx, fleet.DefaultStream, durable)
		if err != nil {
			calm = 0
			continue
		}
		info, err := c.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s := w.Stats()
		if info.NumPending+uint64(info.NumAckPending) == 0 && s.Buffered == 0 && !s.ViewStale && info.Delivered.Stream > 0 {
			calm++
		} else {
			calm = 0
		}
	}
}
