package authz_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/watch"
)

// load is events for the watcher to take while verdicts are asked: tool
// calls of an agent of their own (agent-load), so that what they find
// changes no verdict the benchmark asks, each later than the one before.
type load struct {
	js   jetstream.JetStream
	next time.Time // the next event's time
	n    int
}

// newLoad starts the events one second after the watcher's watermark.
func newLoad(b *testing.B, js jetstream.JetStream, w *watch.Watcher) *load {
	b.Helper()
	v, err := w.Ask(&evidence.Event{SrcIP: "192.0.2.1"}, watch.VerdictRequest{}, "bench")
	if err != nil || v.Watermark.IsZero() {
		b.Fatalf("the watcher's watermark: %v %v", v.Watermark, err)
	}
	return &load{js: js, next: v.Watermark.Add(time.Second)}
}

// msgs are the next n events, every apart in event time.
func (l *load) msgs(n int, every time.Duration) []*nats.Msg {
	out := make([]*nats.Msg, n)
	for i := range out {
		l.n++
		ev := evidence.Event{ID: fmt.Sprintf("load-%08d", l.n), Time: l.next, Source: evidence.SourceLedger, Format: "cordon-ledger",
			Kind: evidence.KindToolCall, Agent: "agent-load", Session: "s-load", Tool: "bash", CallID: fmt.Sprintf("c-load-%d", l.n),
			Cmdline: "ls /work/load", Message: "bash ls /work/load"}
		l.next = l.next.Add(every)
		m, err := fleet.Encode(&ev)
		if err != nil {
			panic(err) // a fixed event that always encodes
		}
		out[i] = m
	}
	return out
}

// publish sends msgs, at most 1,000 awaiting their acknowledgement.
func (l *load) publish(b *testing.B, msgs []*nats.Msg) {
	for i, m := range msgs {
		if _, err := l.js.PublishMsgAsync(m); err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 {
			<-l.js.PublishAsyncComplete()
		}
	}
}

// maxRate is the watcher's event rate on a burst of n events published
// at once: from the first publish until it has released them all (the
// last lateness of event time waits for the idle release, so the figure
// is a little under the rate it sustains).
func (l *load) maxRate(b *testing.B, w *watch.Watcher, n int) float64 {
	b.Helper()
	msgs := l.msgs(n, time.Millisecond)
	before := w.Stats().Released
	start := time.Now()
	l.publish(b, msgs)
	for w.Stats().Released < before+int64(n) {
		if time.Since(start) > 2*time.Minute {
			b.Fatalf("the watcher released %d of %d events in 2 minutes: %+v", w.Stats().Released-before, n, w.Stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return float64(n) / time.Since(start).Seconds()
}

// run publishes events at rate per second, in event time as in wall
// time, until stop is closed; it returns how many it sent.
func (l *load) run(rate float64, stop <-chan struct{}) *atomic.Int64 {
	sent := new(atomic.Int64)
	tick := 10 * time.Millisecond
	per := max(1, int(rate*tick.Seconds()))
	every := time.Duration(float64(time.Second) / rate)
	go func() {
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-stop:
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				select {
				case <-l.js.PublishAsyncComplete():
				case <-ctx.Done():
				}
				return
			case <-t.C:
				msgs := l.msgs(per, every)
				for _, m := range msgs {
					if _, err := l.js.PublishMsgAsync(m); err != nil {
						return
					}
				}
				sent.Add(int64(len(msgs)))
			}
		}
	}()
	return sent
}
