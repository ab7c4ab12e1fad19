package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cordon-ir/cordon/bench/benchtest"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
)

func longFinding(events, values int) detect.Finding {
	f := detect.Finding{ID: "f1", Detector: "plan-divergence", Agent: "agent-1", Severity: "high",
		Start: time.Unix(0, 0).UTC(), End: time.Unix(600, 0).UTC(), Explanation: "went off its plan", Matches: events}
	for i := range events {
		f.Events = append(f.Events, fmt.Sprintf("%016x", i))
	}
	for i := range values {
		f.Values = append(f.Values, fmt.Sprintf("host-%d.example", i))
	}
	return f
}

// A message names the first and last events of a long episode and how
// many it cites; the finding itself is not changed.
func TestMessageNamesFirstAndLastEvents(t *testing.T) {
	f := longFinding(5000, 3)
	o, err := newMessage(f, Created, detect.MarkOf(&f), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var m Message
	if err := json.Unmarshal(o.msg.Data, &m); err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(f.Events[:maxMessageEvents/2]), f.Events[5000-maxMessageEvents/2:]...)
	if !slices.Equal(m.Events, want) || m.EventCount != 5000 || m.EventTotal() != 5000 {
		t.Fatalf("message names %d events (first %s, last %s), event_count %d", len(m.Events), m.Events[0], m.Events[len(m.Events)-1], m.EventCount)
	}
	if !slices.Equal(m.Values, f.Values) || m.ValueCount != 0 {
		t.Fatalf("values %v (%d), want them all", m.Values, m.ValueCount)
	}
	if len(f.Events) != 5000 || len(o.finding.Events) != 5000 {
		t.Fatal("the finding was cut, not its message")
	}
	if ids, more := m.Evidence(5); len(ids) != 5 || more != 4995 {
		t.Fatalf("Evidence(5) of the message: %d ids, %d more; want 5 and 4995", len(ids), more)
	}
	// a finding that fits is named whole, with no count
	small := longFinding(40, 2)
	o, err = newMessage(small, Updated, detect.MarkOf(&small), 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	m = Message{}
	if err := json.Unmarshal(o.msg.Data, &m); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Events, small.Events) || m.EventCount != 0 || strings.Contains(string(o.msg.Data), "event_count") {
		t.Fatalf("a short finding's message: %d events, event_count %d", len(m.Events), m.EventCount)
	}
}

// Under a small max_payload a message names fewer events, then fewer
// values, then cuts its explanation, and always fits.
func TestMessageFitsTheServersLimit(t *testing.T) {
	for _, c := range []struct {
		limit          int64
		events, values int
		explanation    int
	}{
		{64 << 10, 5000, 10, 20},
		{4 << 10, 5000, 10, 20},
		{4 << 10, 0, 2000, 20},
		{2 << 10, 10, 10, 5000},
	} {
		f := longFinding(c.events, c.values)
		f.Explanation = strings.Repeat("é", c.explanation)
		o, err := newMessage(f, Updated, detect.MarkOf(&f), 3, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		hdr := len("NATS/1.0\r\n"+fleet.HeaderMsgID+": \r\n\r\n") + len(o.msg.Header.Get(fleet.HeaderMsgID))
		if n := int64(len(o.msg.Data) + hdr); n > c.limit {
			t.Fatalf("%+v: %d bytes with its headers, limit %d", c, n, c.limit)
		}
		var m Message
		if err := json.Unmarshal(o.msg.Data, &m); err != nil {
			t.Fatal(err)
		}
		if m.EventTotal() != c.events {
			t.Errorf("%+v: the message counts %d events, the finding cites %d", c, m.EventTotal(), c.events)
		}
		if n := max(len(m.Values), m.ValueCount); n != c.values || !slices.Equal(m.Values, f.Values[:len(m.Values)]) {
			t.Errorf("%+v: the message has %d values of %d counted, want the first of %d", c, len(m.Values), m.ValueCount, c.values)
		}
		if !utf8.ValidString(m.Explanation) || len(m.Explanation) < len(f.Explanation) && !strings.HasSuffix(m.Explanation, cutMark) {
			t.Errorf("%+v: explanation %q", c, m.Explanation)
		}
	}
	// a limit not even the finding's name fits is an error, not a loop
	f := longFinding(10, 10)
	if _, err := newMessage(f, Updated, detect.MarkOf(&f), 3, 100); err == nil || !strings.Contains(err.Error(), "max_payload of 100") {
		t.Fatalf("a 100-byte limit: %v", err)
	}
}

// A watcher whose findings cite more events than the server takes in one
// message goes on publishing: each message fits, names the first and last
// events of its finding and counts them all. Before, the client refused
// the message and the watcher stopped on it for good.
func TestWatchLongEpisodeUnderSmallMaxPayload(t *testing.T) {
	const limit = 4 << 10
	_, js := smallBus(t, limit)
	ctx := context.Background()
	evs := benchtest.GeneratedEvents(t, 30000)
	want := oneShotResult(t, evs).Findings
	publishEvents(t, js, evs)
	watch(t, js, Config{Durable: "long", Lateness: time.Second, Idle: 300 * time.Millisecond})

	stream, err := js.Stream(ctx, DefaultFindingsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
		raw, err := stream.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		if len(raw.Data) > limit {
			t.Fatalf("message %d is %d bytes, more than the server's %d", seq, len(raw.Data), limit)
		}
	}
	got, created := fold(published(t, js))
	byID := map[string]detect.Finding{}
	for _, f := range got {
		byID[f.ID] = f
	}
	cut := 0
	for _, w := range want {
		g, ok := byID[w.ID]
		if !ok {
			t.Fatalf("finding %s (%s, %d events) was not published", w.ID, w.Detector, len(w.Events))
		}
		if created[w.ID] != 1 {
			t.Errorf("finding %s created %d times", w.ID, created[w.ID])
		}
		if g.EventTotal() != len(w.Events) || g.Severity != w.Severity || g.Matches != w.Matches {
			t.Errorf("finding %s: %d events, %s, %d matches published; the engine's %d, %s, %d", w.ID, g.EventTotal(), g.Severity, g.Matches, len(w.Events), w.Severity, w.Matches)
		}
		n := len(g.Events)
		if g.EventCount == 0 {
			if !slices.Equal(g.Events, w.Events) {
				t.Errorf("finding %s: published events differ from the engine's", w.ID)
			}
			continue
		}
		cut++
		if head := n - n/2; !slices.Equal(g.Events[:head], w.Events[:head]) || !slices.Equal(g.Events[head:], w.Events[len(w.Events)-n/2:]) {
			t.Errorf("finding %s: the %d events named are not the first and last of its %d", w.ID, n, len(w.Events))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d findings published, the engine's %d", len(got), len(want))
	}
	if cut == 0 {
		t.Fatal("no finding was too large for a message: the test proves nothing")
	}
	t.Logf("%d findings, %d of them named in part", len(want), cut)
}

// Evidence shipped file after file (each source's events hours before
// the last file's) makes a watcher replay about once per file that comes
// late, not at every fetch of it: a replay reads the stream to its end.
// Before, 30,000 generated records shipped by source replayed at every
// fetch of a late file, dozens of times, each a read of the whole stream
// so far. The findings are the one-shot engine's either way.
func TestWatchShippedFileByFileReplaysOncePerFile(t *testing.T) {
	_, js := bus(t)
	evs := benchtest.GeneratedEvents(t, 30000)
	want := oneShot(t, evs)
	bySource := map[string][]evidence.Event{}
	var sources []string
	for _, ev := range evs {
		if bySource[ev.Source] == nil {
			sources = append(sources, ev.Source)
		}
		bySource[ev.Source] = append(bySource[ev.Source], ev)
	}
	sort.Strings(sources)
	var shipped []evidence.Event
	for _, s := range sources {
		shipped = append(shipped, bySource[s]...)
	}
	publishEvents(t, js, shipped)
	st := watch(t, js, Config{Durable: "files", Lateness: 2 * time.Second, Idle: 300 * time.Millisecond})
	t.Logf("%d sources, %d replays, %d late events", len(sources), st.Replays, st.Late)
	if st.Replays == 0 || st.Replays > int64(len(sources)-1) {
		t.Errorf("%d replays for %d files shipped one after another: want one per file that came late at most", st.Replays, len(sources))
	}
	sameFindings(t, js, want)
}

// A source whose clock is far behind (a host that booted without one,
// stamping 1970) is late at every step: the watcher replays at most every
// minReplayGap (or four times what a replay takes), the late events
// waiting for it, not at every step. The findings are the one-shot
// engine's over everything.
func TestWatchClockBehindReplaysSpaced(t *testing.T) {
	_, js := bus(t)
	evs := sampleEvents(t, sample)
	var behind []evidence.Event
	for i, ev := range evs {
		if ev.Source != evidence.SourceSensor || len(behind) == 1000 {
			continue
		}
		ev.Time = time.Unix(int64(i), 0).UTC()
		ev.ID = fmt.Sprintf("%016x", 0x1970_0000_0000+i)
		behind = append(behind, ev)
	}
	want := oneShot(t, append(slices.Clone(evs), behind...))
	publishEvents(t, js, evs)
	r := start(t, js, Config{Durable: "clock", Lateness: time.Second, Idle: 200 * time.Millisecond})
	r.idle(t, js)
	began := time.Now()
	for i := 0; i < len(behind); i += 25 {
		publishEvents(t, js, behind[i:min(i+25, len(behind))])
		time.Sleep(50 * time.Millisecond)
	}
	r.idle(t, js)
	took := time.Since(began)
	st := r.stop(t)
	t.Logf("%d late events in %s: %d replays", st.Late, took.Round(time.Millisecond), st.Replays)
	if st.Late == 0 {
		t.Fatal("no event came late: the test proves nothing")
	}
	if limit := int64(took/minReplayGap) + 2; st.Replays > limit {
		t.Errorf("%d replays in %s: want at most %d, one every %s", st.Replays, took.Round(time.Millisecond), limit, minReplayGap)
	}
	sameFindings(t, js, want)
}
