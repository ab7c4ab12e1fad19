package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// bus is a server and a client of it for one test.
type bus struct {
	url string
	nc  *nats.Conn
	js  jetstream.JetStream
}

func newBus(t *testing.T, stream StreamConfig) *bus {
	t.Helper()
	s := fleettest.Server(t)
	return connectBus(t, s.ClientURL(), stream)
}

func connectBus(t *testing.T, url string, stream StreamConfig) *bus {
	t.Helper()
	nc, js, err := Connect(url, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if _, err := EnsureStream(context.Background(), js, stream); err != nil {
		t.Fatal(err)
	}
	return &bus{url: url, nc: nc, js: js}
}

// messages is how many messages the stream holds.
func (b *bus) messages(t *testing.T, stream string) uint64 {
	t.Helper()
	return fleettest.Messages(t, b.js, stream)
}

// stream is a stream's configuration as the server has it.
func (b *bus) stream(t *testing.T, name string) jetstream.StreamConfig {
	t.Helper()
	s, err := b.js.Stream(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s.CachedInfo().Config
}

// ship runs Ship with checkpoints in state and fails t on an error.
func (b *bus) ship(t *testing.T, state string, inputs []string, opt ShipOptions) ShipResult {
	t.Helper()
	res, err := b.shipErr(t, context.Background(), state, inputs, opt)
	if err != nil {
		t.Fatalf("ship: %v", err)
	}
	return res
}

func (b *bus) shipErr(t *testing.T, ctx context.Context, state string, inputs []string, opt ShipOptions) (ShipResult, error) {
	t.Helper()
	st, err := OpenState(state)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return Ship(ctx, NewPublisher(b.js, 0), st, inputs, opt)
}

// read runs a reader of cfg until the consumer has every message of the
// stream acknowledged, and returns what it delivered by event id.
func (b *bus) read(t *testing.T, cfg ReaderConfig) (map[string][]Delivery, ReaderStats) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := NewReader(ctx, b.js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string][]Delivery{}
	done := make(chan error, 1)
	go func() {
		done <- r.Run(ctx, func(_ context.Context, d Delivery) error {
			mu.Lock()
			defer mu.Unlock()
			got[d.Event.ID] = append(got[d.Event.ID], d)
			return nil
		})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := r.Pending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reader still has %d messages pending after 30s", n)
		}
		select {
		case err := <-done:
			t.Fatalf("reader stopped with %d pending: %v", n, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("reader: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	return got, r.Stats()
}

// incidentFiles copies a sample incident's evidence (not its prose) into a
// temporary folder and returns it.
func incidentFiles(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "sample-incidents", name)
	files, err := ingest.Expand([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range files {
		rel, _ := filepath.Rel(src, f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// ingested is what cordon ingest makes of inputs: the reference a shipped
// stream must match.
func ingested(t *testing.T, inputs ...string) map[string]evidence.Event {
	t.Helper()
	st := evidence.NewMemStore()
	files, err := ingest.Expand(inputs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), files, ingest.Options{Store: st, Rejects: discard{}}); err != nil {
		t.Fatal(err)
	}
	h, err := st.Search(context.Background(), evidence.Request{Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]evidence.Event{}
	for _, ev := range h.Events {
		out[ev.ID] = ev
	}
	return out
}

type discard struct{}

func (discard) Add([]parse.Reject) error { return nil }

// squidLog writes n distinct Squid access.log lines.
func squidLog(t *testing.T, path string, n int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d.%03d   %d 10.0.6.21 TCP_TUNNEL/200 %d CONNECT host%d.example.org:443 px-s701 HIER_DIRECT/151.101.0.223 -\n",
			1793786475+i/1000, i%1000, 100+i%50, 1000+i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// once fails t unless every event of want was delivered exactly once, and
// nothing else was.
func once(t *testing.T, got map[string][]Delivery, want map[string]evidence.Event) {
	t.Helper()
	var missing, twice, extra []string
	for id := range want {
		switch n := len(got[id]); {
		case n == 0:
			missing = append(missing, id)
		case n > 1:
			twice = append(twice, fmt.Sprintf("%s x%d", id, n))
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			extra = append(extra, id)
		}
	}
	sort.Strings(missing)
	sort.Strings(twice)
	sort.Strings(extra)
	if len(missing)+len(twice)+len(extra) > 0 {
		t.Fatalf("of %d events: %d missing %v, %d delivered more than once %v, %d unexpected %v",
			len(want), len(missing), head(missing), len(twice), head(twice), len(extra), head(extra))
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

// fleettestServerWithPayload runs a server whose max_payload is n bytes
// and returns its URL.
func fleettestServerWithPayload(t *testing.T, n int32) string {
	t.Helper()
	return fleettest.ServerWith(t, func(o *server.Options) { o.MaxPayload = n }).ClientURL()
}

type ingestResult = ingest.FileResult

// sampleMessages are every event of the bundled samples as Encode writes
// them (the samples ingested once for the package's tests), at least a
// thousand.
func sampleMessages(t *testing.T) []*nats.Msg {
	t.Helper()
	msgs, err := samplesOnce()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) < 1000 {
		t.Fatalf("%d events in the samples, want their thousands", len(msgs))
	}
	return msgs
}

var samplesOnce = sync.OnceValues(func() ([]*nats.Msg, error) {
	dirs, err := os.ReadDir(filepath.Join("..", "sample-incidents"))
	if err != nil {
		return nil, err
	}
	var out []*nats.Msg
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		st := evidence.NewMemStore()
		files, err := ingest.Expand([]string{filepath.Join("..", "sample-incidents", d.Name())})
		if err != nil {
			return nil, err
		}
		if _, err := ingest.Run(context.Background(), files, ingest.Options{Store: st, Rejects: discard{}}); err != nil {
			return nil, err
		}
		h, err := st.Search(context.Background(), evidence.Request{Limit: 1 << 20})
		if err != nil {
			return nil, err
		}
		for i := range h.Events {
			m, err := Encode(&h.Events[i])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", h.Events[i].ID, err)
			}
			out = append(out, m)
		}
	}
	return out, nil
})
