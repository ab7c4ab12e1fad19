package incident

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// replayed ingests a sample into a new workspace and replays it: with the
// log the ingest wrote removed, the replay reads the index and writes the
// replay log, which a second replay reads.
func replayed(t *testing.T, sample string) (*Workspace, detect.Result) {
	t.Helper()
	ctx := context.Background()
	ws, err := Create(filepath.Join(t.TempDir(), "inc"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if _, err := ws.Ingest(ctx, []string{sample}, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	dropReplayLog(t, ws) // the one the ingest wrote from its intake
	fromIndex, err := ws.ScanWith(ctx, FindingsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if from := ws.ReplayedFrom(); !strings.HasPrefix(from, "the index") || !strings.Contains(from, "written for the next") {
		t.Fatalf("%s: the first replay read %q", sample, from)
	}
	return ws, fromIndex
}

// dropReplayLog removes the workspace's replay log, so that the next
// replay reads the index.
func dropReplayLog(t *testing.T, ws *Workspace) {
	t.Helper()
	for _, f := range []string{replayLogFile, replayMetaFile} {
		if err := os.Remove(filepath.Join(ws.Dir, engineDir, f)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

func sameResult(t *testing.T, what string, got, want detect.Result) {
	t.Helper()
	if !reflect.DeepEqual(got.Findings, want.Findings) {
		t.Errorf("%s: %d findings, want %d:\n got %+v\nwant %+v", what, len(got.Findings), len(want.Findings), got.Findings, want.Findings)
	}
	if !reflect.DeepEqual(got.Capabilities.ByAgent(), want.Capabilities.ByAgent()) {
		t.Errorf("%s: the capability sets differ", what)
	}
	if !reflect.DeepEqual(got.Skews, want.Skews) || !reflect.DeepEqual(got.Coverage.State(), want.Coverage.State()) {
		t.Errorf("%s: the clock skews or coverage differ", what)
	}
}

// On every bundled sample a replay from the log gives what the replay from
// the index gave: findings, capability sets, skews and coverage.
func TestReplayLogGivesTheIndexAnswer(t *testing.T) {
	samples, err := filepath.Glob(filepath.Join("..", "sample-incidents", "*", "README.md"))
	if err != nil || len(samples) < 6 {
		t.Fatalf("samples: %v %v", samples, err)
	}
	for _, readme := range samples {
		sample := filepath.Dir(readme)
		t.Run(filepath.Base(sample), func(t *testing.T) {
			ws, want := replayed(t, sample)
			got, err := ws.ScanWith(context.Background(), FindingsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if from := ws.ReplayedFrom(); from != "the replay log" {
				t.Fatalf("the second replay read %q", from)
			}
			sameResult(t, sample, got, want)
		})
	}
}

// Read from the log for a reader that asks for some events' text only
// (detect.LeanSource), the replay leaves out the others' message and
// record as written, and every origin, and keeps every other field; read
// from the index, where it writes the log anew, every event is whole.
func TestReplayLogLeavesOutWhatIsNotAskedFor(t *testing.T) {
	ctx := context.Background()
	ws, _ := replayed(t, filepath.Join("..", "sample-incidents", "egress-probe-exfil"))
	var whole []evidence.Event
	if err := ws.replaySource().Each(ctx, evidence.All(), func(ev evidence.Event) error {
		whole = append(whole, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	notProxy := func(source, kind string) bool { return source != evidence.SourceProxy }
	read := func() []evidence.Event {
		var evs []evidence.Event
		if err := ws.replaySource().EachLean(ctx, notProxy, func(ev evidence.Event) error {
			evs = append(evs, ev)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return evs
	}
	got := read()
	if from := ws.ReplayedFrom(); from != "the replay log" {
		t.Fatalf("read %q", from)
	}
	if len(got) != len(whole) {
		t.Fatalf("%d events, want %d", len(got), len(whole))
	}
	left := 0
	for i := range whole {
		want := whole[i]
		if want.Origin == "" {
			t.Fatalf("event %d read from the index has no origin", i)
		}
		want.Origin = ""
		if want.Source == evidence.SourceProxy && want.Raw != "" {
			want.Raw, want.Message = "", ""
			left++
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("event %d:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
	if left == 0 {
		t.Fatal("no proxy record with its record as written in the sample")
	}
	dropReplayLog(t, ws)
	if got := read(); !reflect.DeepEqual(got, whole) {
		t.Error("read from the index, events came without their text")
	}
	if from := ws.ReplayedFrom(); !strings.HasPrefix(from, "the index") {
		t.Fatalf("the second read %q", from)
	}
}

// The log is not read once the index changed: more events, events
// rewritten by attribution; nor when it is damaged, cut short or its
// meta does not describe it. Each time the replay gives the index's answer
// and writes the log again.
func TestReplayLogOnlyOfTheIndexNow(t *testing.T) {
	ctx := context.Background()
	ws, want := replayed(t, filepath.Join("..", "sample-incidents", "credential-theft"))
	logPath := filepath.Join(ws.Dir, engineDir, replayLogFile)
	again := func(what, wantFrom string) detect.Result {
		t.Helper()
		got, err := ws.ScanWith(ctx, FindingsOptions{})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if from := ws.ReplayedFrom(); !strings.Contains(from, wantFrom) {
			t.Fatalf("%s: the replay read %q, want %q", what, from, wantFrom)
		}
		return got
	}
	damage := func(what string, change func(b []byte) []byte) {
		t.Helper()
		b, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(logPath, change(b), 0o600); err != nil {
			t.Fatal(err)
		}
		sameResult(t, what, again(what, "the index"), want)
		sameResult(t, what+", then", again(what+", then", "the replay log"), want)
	}
	// a byte flipped in a chunk: the size holds, the checksum does not
	damage("a flipped byte", func(b []byte) []byte { b[len(b)/2] ^= 0xff; return b })
	damage("a log cut short", func(b []byte) []byte { return b[:len(b)-10] })
	damage("a log grown", func(b []byte) []byte { return append(b, b[len(replayLogMagic):]...) })

	// a chunk whose checksum holds but whose events do not: the meta's
	// count catches a log of other events of the same size
	meta, err := readReplayMeta(filepath.Join(ws.Dir, engineDir))
	if err != nil {
		t.Fatal(err)
	}
	meta.Events++
	writeMeta(t, ws, meta)
	sameResult(t, "a meta that miscounts", again("a meta that miscounts", "the index"), want)
	if meta, err = readReplayMeta(filepath.Join(ws.Dir, engineDir)); err != nil {
		t.Fatal(err)
	}

	// new events: the generation and the evidence change
	extra := filepath.Join("..", "sample-incidents", "egress-probe-exfil")
	if _, err := ws.Ingest(ctx, []string{extra}, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	// (the ingest's own detectors may have replayed and written the log
	// already: what is read must be the index's events now)
	ws.ScanWith(ctx, FindingsOptions{})
	after, err := readReplayMeta(filepath.Join(ws.Dir, engineDir))
	if err != nil || after.Generation == meta.Generation || after.Events <= meta.Events {
		t.Errorf("after an ingest of another sample the log's meta is %+v (%v), before %+v", after, err, meta)
	}
	more := again("after an ingest", "the replay log")
	direct, err := Scan(ctx, ws.store, FindingsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, "after an ingest", more, direct)

	// events rewritten in place: the generation changes though the counts may not
	st := ws.store
	var one evidence.Event
	_ = evidence.StoreSource{Store: st}.Each(ctx, evidence.All(), func(ev evidence.Event) error {
		if one.ID == "" && ev.Kind == evidence.KindPrompt {
			one = ev
		}
		return nil
	})
	one.Message = "rewritten " + time.Now().String()
	if n, err := st.Replace(ctx, []evidence.Event{one}); n != 1 || err != nil {
		t.Fatalf("replace: %d, %v", n, err)
	}
	again("after a replace", "the evidence changed since the replay log was written")
}

func writeMeta(t *testing.T, ws *Workspace, m replayMeta) {
	t.Helper()
	b, err := json.Marshal(m)
	if err == nil {
		err = os.WriteFile(filepath.Join(ws.Dir, engineDir, replayMetaFile), b, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// An event bigger than a chunk (a hostile record's megabytes) is a chunk
// of its own, and reads back whole.
func TestReplayLogHoldsAHugeEvent(t *testing.T) {
	dir := t.TempDir()
	lw, err := newLogWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	noise := make([]byte, 6*replayChunk) // 6 MiB that do not compress
	rand.NewChaCha8([32]byte{1}).Read(noise)
	huge := string(noise)
	evs := []evidence.Event{{ID: "a", Time: at, Message: "before"}, {ID: "b", Time: at.Add(time.Second), URL: huge}, {ID: "c", Time: at.Add(2 * time.Second), Message: "after"}}
	for i := range evs {
		lw.add(&evs[i])
	}
	if err := lw.finish(replayMeta{Version: replayVersion}); err != nil {
		t.Fatal(err)
	}
	var got []evidence.Event
	err = eachLogged(context.Background(), filepath.Join(dir, replayLogFile), int64(len(evs)), evidence.EventDecoder{}, func(ev evidence.Event) error {
		got = append(got, ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, evs) {
		t.Errorf("read %d events back, not the %d written (the huge one: %d bytes)", len(got), len(evs), len(got[min(1, len(got)-1)].URL))
	}
}
