package watch

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
)

const sample = "credential-theft"

// A bundled sample shipped as cordon ship sends it (file after file, so
// whole sources arrive hours out of order) gives the one-shot engine's
// findings, each created once.
func TestWatchShippedSampleMatchesOneShot(t *testing.T) {
	_, js := bus(t)
	want := oneShot(t, sampleEvents(t, sample))
	st, err := fleet.OpenState(filepath.Join(t.TempDir(), "ship.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := fleet.Ship(context.Background(), fleet.NewPublisher(js, 0), st,
		[]string{filepath.Join("..", "sample-incidents", sample)}, fleet.ShipOptions{}); err != nil {
		t.Fatal(err)
	}
	s := watch(t, js, Config{Durable: "shipped", Lateness: 2 * time.Second, Idle: 500 * time.Millisecond})
	t.Logf("%+v", s)
	sameFindings(t, js, want)
}

// Two sources reaching the stream out of order, by less than the
// lateness, are put back in order: the same findings, and no replay.
func TestWatchOutOfOrderWithinLateness(t *testing.T) {
	_, js := bus(t)
	evs := sampleEvents(t, sample)
	want := oneShot(t, evs)
	// the proxy's events reach the stream 1.5 s of event time after they
	// happened, the sensors' 0.7 s
	delay := map[string]time.Duration{evidence.SourceProxy: 1500 * time.Millisecond, evidence.SourceSensor: 700 * time.Millisecond}
	order := slices.Clone(evs)
	sort.SliceStable(order, func(i, j int) bool {
		return order[i].Time.Add(delay[order[i].Source]).Before(order[j].Time.Add(delay[order[j].Source]))
	})
	if n := inversions(order); n == 0 {
		t.Fatal("the publication order is the events' own: the test would prove nothing")
	} else {
		t.Logf("%d event(s) published after a later one", n)
	}
	publishEvents(t, js, order)
	s := watch(t, js, Config{Durable: "reorder", Lateness: 2 * time.Second, Idle: 3 * time.Second})
	if s.Replays != 0 || s.Late != 0 {
		t.Errorf("events within the lateness made %d replay(s), %d late: %s", s.Replays, s.Late, s.LastReplay)
	}
	sameFindings(t, js, want)
}

// An event later than the lateness makes the watcher replay the stream;
// the findings still match, the late event among their evidence.
func TestWatchLateEventReplays(t *testing.T) {
	_, js := bus(t)
	evs := sampleEvents(t, sample)
	want := oneShot(t, evs)
	// hold back an event some finding stands on (not a session record):
	// without it, that finding's evidence differs
	cited := map[string]bool{}
	for _, f := range want {
		for _, id := range f.Events {
			cited[id] = true
		}
	}
	late := -1
	for i := len(evs) / 3; i < len(evs); i++ {
		if cited[evs[i].ID] && !attribution.SessionRecord(&evs[i]) {
			late = i
			break
		}
	}
	if late < 0 {
		t.Fatal("no cited event to hold back")
	}
	order := slices.Concat(evs[:late], evs[late+1:], evs[late:late+1])
	if gap := order[len(order)-2].Time.Sub(evs[late].Time); gap < time.Minute {
		t.Fatalf("the held-back event is only %s late", gap)
	}
	// the late event is published once the watcher has released the
	// events after it: published with them, it could come in the same
	// fetch and be put in order in the buffer, late to no one
	publishEvents(t, js, order[:len(order)-1])
	w, err := New(js, Config{Durable: "late", Lateness: 2 * time.Second, Idle: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	waitIdle(t, js, w, "late", done)
	publishEvents(t, js, order[len(order)-1:])
	waitIdle(t, js, w, "late", done)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watcher: %v", err)
	}
	s := w.Stats()
	if s.Replays != 1 || s.Late != 1 {
		t.Errorf("one late event: %d replay(s), %d late (%s)", s.Replays, s.Late, s.LastReplay)
	}
	t.Logf("replayed: %s", s.LastReplay)
	sameFindings(t, js, want)
}

// inversions counts events published after one later than them.
func inversions(evs []evidence.Event) int {
	n := 0
	var highest time.Time
	for i := range evs {
		if evs[i].Time.Before(highest) {
			n++
		}
		if evs[i].Time.After(highest) {
			highest = evs[i].Time
		}
	}
	return n
}
