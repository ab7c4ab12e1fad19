package authz_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cordon-ir/cordon/platform"
	"github.com/cordon-ir/cordon/watch"
)

// benchRate is the request rate the latency is measured at.
const benchRate = 1000

// BenchmarkVerdictLatency measures a verdict's round trip as a gateway
// sees it, over NATS request/reply and over ext_authz, both on loopback,
// at benchRate requests per second sent open-loop (each at its time,
// whether the one before was answered or not). b.N is the number of
// requests: run it with -benchtime Nx (docs/performance.md). Cases:
//
//   - allow/receipts: an allowed agent (agent-14), every allow kept
//     (sample_allows: 1), so every verdict queues a receipt;
//   - allow/sampled: the same verdict, one allow in the built-in policy's
//     sample_allows (100) kept, as a watcher keeps them by default;
//   - allow/none: the same verdict, no allow kept (sample_allows: 0);
//   - refuse: the thief (agent-12), refused, always kept;
//   - bare (NATS only): not cordon's: a responder of its own in the same
//     process, on its own connection, answering a refusal's bytes
//     encoded beforehand, while the watcher runs as in the other cases:
//     the floor the machine and the transport set under each load.
//
// and two loads of the watcher:
//
//   - idle: it has taken the sample and nothing comes;
//   - load50: first a burst of burstEvents events measures its maximum
//     event rate (max-events/s), then events come at half of it while
//     the verdicts are asked (events/s: the rate sent).
//
// Reported: p50, p99 and max in µs, the rate achieved, and ns/op as the
// mean latency.
func BenchmarkVerdictLatency(b *testing.B) {
	for _, loaded := range []bool{false, true} {
		benchVerdicts(b, loaded)
	}
}

// burstEvents is the burst the watcher's maximum event rate is measured on.
const burstEvents = 40000

func benchVerdicts(b *testing.B, loaded bool) {
	def, _ := watch.DefaultPolicy()
	for _, c := range []struct {
		name   string
		sample int
		agent  string
		ip     string
		want   string
	}{
		{"allow/receipts", 1, "agent-14", "10.0.2.25", watch.Allow},
		{"allow/sampled", def.SampleAllows, "agent-14", "10.0.2.25", watch.Allow},
		{"allow/none", 0, "agent-14", "10.0.2.25", watch.Allow},
		{"refuse", 100, "agent-12", "10.0.2.21", watch.Refuse},
		{"bare", 0, "", "", watch.Refuse},
	} {
		for _, path := range []string{"nats", "ext_authz"} {
			if c.name == "bare" && path != "nats" {
				continue
			}
			name := path + "/idle/" + c.name
			if loaded {
				name = path + "/load50/" + c.name
			}
			b.Run(name, func(b *testing.B) {
				vc := everyAllow(b)
				vc.CommitEvery = 0 // the default, 100 ms
				vc.Policy.SampleAllows = c.sample
				w, url, js, stop := run(b, vc)
				var once func() (string, error)
				switch {
				case c.name == "bare":
					once = bareResponder(b, url)
				case path == "nats":
					nc, err := nats.Connect(url)
					if err != nil {
						b.Fatal(err)
					}
					defer nc.Close()
					body, _ := json.Marshal(watch.VerdictRequest{ID: "bench", Action: json.RawMessage(`{"method":"CONNECT","host":"pypi.org:443"}`)})
					subj := watch.VerdictSubject(c.agent)
					once = func() (string, error) {
						m, err := nc.Request(subj, body, time.Second)
						if err != nil {
							return "", err
						}
						// what the gateway hook of docs/verdicts.md reads
						var v struct{ Recommendation string }
						err = json.Unmarshal(m.Data, &v)
						return v.Recommendation, err
					}
				default:
					_, client := serve(b, w)
					req := check("bench", c.ip, "", time.Time{}, nil)
					once = func() (string, error) {
						ctx, cancel := context.WithTimeout(context.Background(), time.Second)
						defer cancel()
						resp, err := client.Check(ctx, req)
						if err != nil {
							return "", err
						}
						if codes.Code(resp.GetStatus().GetCode()) == codes.PermissionDenied {
							return watch.Refuse, nil
						}
						return resp.GetDynamicMetadata().AsMap()["recommendation"].(string), nil
					}
				}
				// a few to warm the connection and the watcher's view
				for range 50 {
					if got, err := once(); err != nil || got != c.want {
						b.Fatalf("warm-up: %q %v, want %s", got, err, c.want)
					}
				}
				var sent func() int64
				if loaded {
					l := newLoad(b, js, w)
					top := l.maxRate(b, w, burstEvents)
					done := make(chan struct{})
					n := l.run(top/2, done)
					defer close(done)
					start := time.Now()
					sent = func() int64 {
						// after paced: ResetTimer drops what was reported before
						b.ReportMetric(top, "max-events/s")
						b.ReportMetric(float64(n.Load())/time.Since(start).Seconds(), "events/s")
						return n.Load()
					}
					time.Sleep(3 * time.Second) // the reorder buffer fills to its lateness
				}
				before := w.Stats().Receipts
				lat := paced(b, once, c.want)
				if sent != nil {
					sent()
				}
				if err := stop(); err != nil {
					b.Fatal(err)
				}
				kept := w.Stats().Receipts - before
				if c.name != "bare" && (c.sample == 0 && kept != 0 || c.sample == 1 && kept < int64(b.N)) {
					b.Fatalf("%d receipts kept for %d verdicts (sample_allows %d)", kept, b.N, c.sample)
				}
				report(b, lat)
			})
		}
	}
}

// bareResponder answers requests on a subject of its own with the bytes
// of the watcher's refusal of agent-12, encoded once beforehand, and
// returns what asks it, as the gateway asks the watcher.
func bareResponder(b *testing.B, url string) func() (string, error) {
	b.Helper()
	ask, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ask.Close)
	body, _ := json.Marshal(watch.VerdictRequest{ID: "bench"})
	m, err := ask.Request(watch.VerdictSubject("agent-12"), body, time.Second)
	if err != nil {
		b.Fatal(err)
	}
	reply := m.Data
	rnc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(rnc.Close)
	if _, err := rnc.Subscribe("bench.bare", func(m *nats.Msg) { _ = m.Respond(reply) }); err != nil {
		b.Fatal(err)
	}
	if err := rnc.Flush(); err != nil {
		b.Fatal(err)
	}
	return func() (string, error) {
		m, err := ask.Request("bench.bare", body, time.Second)
		if err != nil {
			return "", err
		}
		var v struct{ Recommendation string }
		err = json.Unmarshal(m.Data, &v)
		return v.Recommendation, err
	}
}

// paced sends b.N requests open-loop at benchRate and returns each one's
// latency.
func paced(b *testing.B, once func() (string, error), want string) []time.Duration {
	lat := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	var timeouts atomic.Int64
	every := time.Second / benchRate
	b.ResetTimer()
	start, cpu := time.Now(), platform.ProcessCPU()
	for i := range b.N {
		if d := time.Until(start.Add(time.Duration(i) * every)); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			got, err := once()
			lat[i] = time.Since(t0)
			if err == nil && got != want {
				err = &wrong{got: got, want: want}
			}
			if errors.Is(err, nats.ErrTimeout) || status.Code(err) == codes.DeadlineExceeded {
				timeouts.Add(1) // counted as the 1 s waited: a machine too loaded to answer
				return
			}
			if err != nil {
				mu.Lock()
				failed = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	if failed != nil {
		b.Fatal(failed)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	// the cores the process used while the requests came (of 2 here):
	// the server, the publisher, the watcher and the gateway together
	b.ReportMetric((platform.ProcessCPU()-cpu).Seconds()/time.Since(start).Seconds(), "cores")
	b.ReportMetric(float64(timeouts.Load()), "timeouts")
	return lat
}

type wrong struct{ got, want string }

func (w *wrong) Error() string { return "answered " + w.got + ", want " + w.want }

// report gives the quantiles of lat.
func report(b *testing.B, lat []time.Duration) {
	s := slices.Clone(lat)
	slices.Sort(s)
	q := func(p float64) float64 { return float64(s[int(p*float64(len(s)-1))].Nanoseconds()) / 1e3 }
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	b.ReportMetric(q(0.50), "p50-µs")
	b.ReportMetric(q(0.99), "p99-µs")
	b.ReportMetric(float64(s[len(s)-1].Nanoseconds())/1e3, "max-µs")
	b.ReportMetric(float64(sum.Nanoseconds())/float64(len(s)), "ns/op")
}
