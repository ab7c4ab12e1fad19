package incident

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/platform"
)

// keptSample is a workspace of the persistence-after-kill sample, its
// folder, and the detectors' answer it kept.
func keptSample(t *testing.T) (*Workspace, string, detect.Result, error) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "inc")
	ws, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Ingest(context.Background(), []string{filepath.Join("..", "sample-incidents", "persistence-after-kill")}, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := ws.Result(context.Background())
	return ws, dir, r, err
}

// A workspace opened later reads the kept result, not the index: a title
// changed in what was kept shows; Recompute runs the detectors again; a
// result kept for other evidence is not read.
func TestKeptResultIsRead(t *testing.T) {
	ctx := context.Background()
	ws, dir, r, err := keptSample(t)
	if err != nil || len(r.Findings) == 0 {
		t.Fatalf("%d findings, %v", len(r.Findings), err)
	}
	title := r.Findings[0].Title
	meta, ok := ws.resultMeta()
	if !ok {
		t.Fatal("a writable workspace cannot keep its result")
	}
	changed := r
	changed.Findings = append(r.Findings[:0:0], r.Findings...)
	changed.Findings[0].Title = "KEPT"
	if err := ws.keepScan(meta, changed); err != nil {
		t.Fatal(err)
	}
	ws.Close()

	ro, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, err := ro.Result(ctx)
	if err != nil || got.Findings[0].Title != "KEPT" || ro.DetectorRuns() != 0 {
		t.Errorf("read %q after %d runs (%v), want the kept result", got.Findings[0].Title, ro.DetectorRuns(), err)
	}
	if _, ok := ro.keptScan(resultMeta{Engine: meta.Engine, Evidence: "other evidence"}); ok {
		t.Error("a result kept for other evidence was read")
	}
	ro.Recompute()
	if got, err := ro.Result(ctx); err != nil || got.Findings[0].Title != title || ro.DetectorRuns() != 1 {
		t.Errorf("recomputed %q after %d runs (%v)", got.Findings[0].Title, ro.DetectorRuns(), err)
	}
}

// A kept result that is not the evidence's says why, the rules before the
// evidence.
func TestStaleWhy(t *testing.T) {
	now := resultMeta{Engine: engineVersion, Model: capabilityModel, Mapping: 5, Evidence: "e2", Rules: "r2", Redactor: "k"}
	for _, c := range []struct {
		kept resultMeta
		want string
	}{
		{resultMeta{Engine: "scan/1", Model: capabilityModel, Mapping: 5, Evidence: "e2", Rules: "r2", Redactor: "k"}, "another cordon version"},
		{resultMeta{Engine: engineVersion, Model: capabilityModel, Mapping: 5, Evidence: "e1", Rules: "r1", Redactor: "k"}, "the rules changed"},
		{resultMeta{Engine: engineVersion, Model: capabilityModel, Mapping: 5, Evidence: "e1", Rules: "r2", Redactor: "k"}, "the evidence changed"},
	} {
		if got := staleWhy(c.kept, now); !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.kept, got, c.want)
		}
	}
}

// The kept result's file reads back as written, over several parts of
// capabilities; a file cut short anywhere is refused, never half read;
// a file of another format is named as such; a head whose meta is not
// wanted stops the reading there.
func TestKeptResultFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, engineDir), 0o700); err != nil {
		t.Fatal(err)
	}
	k := keptResult{Meta: resultMeta{Engine: engineVersion, Evidence: "e"}, Findings: []detect.Finding{{ID: "f1", Events: []string{"a", "b"}}, {ID: "f2"}, {ID: "f3", Events: []string{"", strings.Repeat("c", 300)}}},
		Capabilities: map[string][]*capability.Capability{}}
	for i := range 2*capPart + 3 {
		a := fmt.Sprintf("agent-%d", i%3)
		k.Capabilities[a] = append(k.Capabilities[a], &capability.Capability{Agent: a, Kind: capability.DataOut, Value: fmt.Sprintf("h%d", i),
			Uses: []capability.Use{{ID: fmt.Sprint(i), Time: time.Unix(int64(i), 0).UTC()}}})
	}
	path := filepath.Join(dir, engineDir, resultFile)
	if err := platform.WriteAtomicWith(path, func(w io.Writer) error { return writeKept(w, k) }); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, engineDir, ".tmp-*")); len(left) > 0 {
		t.Errorf("scratch files left: %q", left)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.NewBuffer(file) // the file's bytes, for the breaks below
	got, err := readKept(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Capabilities != nil || got.load.All == nil {
		t.Error("the capability sets were decoded as the file was read")
	}
	if !reflect.DeepEqual(got.load.All(), k.Capabilities) || !reflect.DeepEqual(got.Findings, k.Findings) || got.Meta != k.Meta {
		t.Error("the kept result read back differs from what was written")
	}
	// the file is mapped: replaced as the workspace replaces it (by
	// rename) and then removed, with collections between, the sets not
	// yet decoded decode as they were kept
	lazy, err := readKept(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := platform.WriteAtomic(path, []byte("another result")); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	runtime.GC()
	runtime.GC()
	if !reflect.DeepEqual(lazy.load.Agent("agent-1"), k.Capabilities["agent-1"]) || !reflect.DeepEqual(lazy.load.All(), k.Capabilities) {
		t.Error("the sets decoded after their file was replaced differ from what was written")
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	// one agent's set alone, from the parts its name spans
	for a, want := range k.Capabilities {
		if got := got.load.Agent(a); !reflect.DeepEqual(got, want) {
			t.Errorf("%s's set alone: %d capabilities, want %d", a, len(got), len(want))
		}
	}
	// a byte flipped in a capability part is found as the file is read,
	// not when the sets are decoded later
	flipped := bytes.Clone(b.Bytes())
	headAt := len(flipped) - 16 - int(binary.BigEndian.Uint64(flipped[len(flipped)-16:])) - 8
	flipped[headAt-10] ^= 0x20 // in the last capability part, before the head
	if err := os.WriteFile(path, flipped, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readKept(dir, nil); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("a damaged capability part: %v", err)
	}
	// a part the head does not count, before the head, is not passed over
	extra := append(bytes.Clone(b.Bytes()[:headAt]), binary.BigEndian.AppendUint64(nil, 1)...)
	extra = append(append(extra, 'x'), b.Bytes()[headAt:]...)
	if err := os.WriteFile(path, extra, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readKept(dir, nil); err == nil {
		t.Error("a part the head does not count was passed over")
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if h, err := readKept(dir, func(resultMeta) bool { return false }); !errors.Is(err, errOtherMeta) || h.Meta != k.Meta || h.load.All != nil {
		t.Errorf("a meta not wanted: %v, %+v", err, h)
	}
	for _, cut := range []int{4, 20, b.Len() / 2, b.Len() - 1} {
		if err := os.WriteFile(path, b.Bytes()[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := readKept(dir, nil); err == nil {
			t.Errorf("a file cut at %d of %d bytes was read", cut, b.Len())
		}
	}
	var old bytes.Buffer
	if err := gob.NewEncoder(&old).Encode(struct {
		Meta     resultMeta
		Findings []detect.Finding
	}{k.Meta, k.Findings}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, old.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &Workspace{Dir: dir}
	if _, ok := w.keptScan(k.Meta); ok || w.stale != "the kept result is another cordon version's, or damaged" {
		t.Errorf("a file of another format: %q", w.stale)
	}
}

// A result read back ranks its agents from the holdings kept with it,
// decoding no capability set, and gives the sets when they are asked for:
// the same ranking, the same sets, as the result that was kept.
func TestKeptResultRanksWithoutDecodingTheSets(t *testing.T) {
	ctx := context.Background()
	ws, err := Create(filepath.Join(t.TempDir(), "inc"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Ingest(ctx, []string{filepath.Join("..", "sample-incidents", "credential-theft")}, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := ws.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	meta, ok := ws.resultMeta()
	if !ok {
		t.Fatal("the result cannot be kept")
	}
	if err := ws.keepScan(meta, res); err != nil {
		t.Fatal(err)
	}
	k, err := readKept(ws.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	loads, agentLoads := 0, 0
	load := k.load
	k.load = capability.Loader{
		All:   func() map[string][]*capability.Capability { loads++; return load.All() },
		Agent: func(a string) []*capability.Capability { agentLoads++; return load.Agent(a) },
	}
	back := k.result()
	want := detect.RankAgents(detect.RankInput{Findings: res.Findings, Capabilities: res.Capabilities})
	got := detect.RankAgents(detect.RankInput{Findings: back.Findings, Capabilities: back.Capabilities})
	if loads+agentLoads != 0 {
		t.Errorf("ranking decoded the capability sets %d times, and one agent's %d times", loads, agentLoads)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ranking from the kept result:\n%+v\nwant:\n%+v", got, want)
	}
	if n := len(want); n == 0 || len(want[0].Acquired) == 0 {
		t.Fatalf("the sample's ranking names nothing acquired: the comparison proves little (%+v)", want)
	}
	agents := res.Capabilities.Agents()
	for _, a := range agents {
		if !reflect.DeepEqual(back.Capabilities.For(a), res.Capabilities.For(a)) {
			t.Errorf("capability set of %s read back differs", a)
		}
		_ = back.Capabilities.For(a) // asked again: not decoded again
	}
	if loads != 0 || agentLoads != len(agents) {
		t.Errorf("asking each agent's set decoded every set %d times and one agent's %d times, want 0 and %d", loads, agentLoads, len(agents))
	}
	if !reflect.DeepEqual(back.Capabilities.ByAgent(), res.Capabilities.ByAgent()) || loads != 1 {
		t.Errorf("every set read back differs, or was decoded %d times", loads)
	}
}

// A process that opened the workspace to read keeps the result it ran
// only where the workspace is private: one open to other users keeps
// nothing of what a reader computed.
func TestReaderKeepsOnlyInAPrivateWorkspace(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "inc")
	ws, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Ingest(ctx, []string{filepath.Join("..", "sample-incidents", "persistence-after-kill")}, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	ws.Close()
	kept := filepath.Join(dir, engineDir, resultFile)
	for _, private := range []bool{false, true} {
		os.Remove(kept)
		mode := os.FileMode(0o750)
		if private {
			mode = 0o700
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		ro, err := Open(dir, AllowShared(true))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ro.Result(ctx); err != nil {
			t.Fatal(err)
		}
		_, didKeep := ro.Stale()
		_, statErr := os.Stat(kept)
		if didKeep != private || (statErr == nil) != private {
			t.Errorf("private %v: kept %v, file: %v", private, didKeep, statErr)
		}
		ro.Close()
	}
}

// Nothing is kept once the workspace was closed: the detectors' run that a
// server's consoles share may end after the server closed the workspace,
// and must not write into a folder its owner is copying or removing.
func TestNothingKeptAfterClose(t *testing.T) {
	ws, dir, r, err := keptSample(t)
	if err != nil {
		t.Fatal(err)
	}
	meta, ok := ws.resultMeta()
	if !ok {
		t.Fatal("a writable workspace cannot keep its result")
	}
	if err := os.RemoveAll(filepath.Join(dir, engineDir)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, assessmentFile))
	ws.Close()
	if err := ws.keepScan(meta, r); err != nil {
		t.Fatal(err)
	}
	ws.keepAssessment("k", capability.Assessment{State: "x"})
	for _, name := range []string{engineDir, assessmentFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s written after Close (%v)", name, err)
		}
	}
}

// The harness's kills are kept with the result: a process that reads the
// kept result (no pass) names the same kill of the subject, and an agent
// outside the subject is not named.
func TestHarnessKillsAreKept(t *testing.T) {
	ctx := context.Background()
	ws, dir, r, err := keptSample(t)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 9, 2, 14, 21, 4, 0, time.UTC)
	if k, ok := r.Kills["agent-21"]; !ok || !k.Truncate(time.Second).Equal(want) {
		t.Fatalf("the pass's kills: %v, want agent-21 at %s", r.Kills, want)
	}
	ws.Close()
	ro, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, err := ro.HarnessKills(ctx, []string{"agent-21", "agent-99"})
	if err != nil || len(got) != 1 || !got["agent-21"].Equal(r.Kills["agent-21"]) || ro.DetectorRuns() != 0 {
		t.Fatalf("read back: %v (%v) after %d passes", got, err, ro.DetectorRuns())
	}
	if got, _ := ro.HarnessKills(ctx, []string{"agent-99"}); len(got) != 0 {
		t.Errorf("an agent outside the subject: %v", got)
	}
}

// The case offers a kill time only when the harness killed every agent
// of its subject: the last of their kills, else none.
func TestSubjectKillNeedsEveryAgent(t *testing.T) {
	t1, t2 := time.Date(2026, 9, 2, 14, 0, 0, 0, time.UTC), time.Date(2026, 9, 2, 14, 5, 0, 0, time.UTC)
	kills := map[string]time.Time{"a": t1, "b": t2}
	if got := SubjectKill(kills, []string{"a", "b"}); !got.Equal(t2) {
		t.Errorf("both killed: %s, want the last kill %s", got, t2)
	}
	if got := SubjectKill(kills, []string{"a", "c"}); !got.IsZero() {
		t.Errorf("c not killed: %s, want none", got)
	}
	if got := SubjectKill(kills, nil); !got.IsZero() {
		t.Errorf("no subject: %s", got)
	}
	ctx := context.Background()
	ws, _, _, err := keptSample(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, c := range []struct {
		subject []string
		killed  bool
	}{{[]string{"agent-21"}, true}, {[]string{"agent-21", "agent-99"}, false}} {
		cs, err := ws.Case(ctx, CaseState{Subject: c.subject})
		if err != nil {
			t.Fatal(err)
		}
		if cs.HarnessKill.IsZero() == c.killed {
			t.Errorf("subject %v: the case's harness kill %s", c.subject, cs.HarnessKill)
		}
	}
}

// The findings' event ids come back as they were written, whatever the
// shares the decoding cuts them in, and sizes that do not add up to the
// part are an error, not ids cut in the wrong places.
func TestKeptEventIDs(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 11))
	for round := range 50 {
		fs := make([]detect.Finding, rnd.IntN(12))
		for i := range fs {
			fs[i].ID = fmt.Sprint("f", i)
			for range rnd.IntN(3) * rnd.IntN(200) {
				fs[i].Events = append(fs[i].Events, strings.Repeat("x", rnd.IntN(40))+fmt.Sprint(rnd.Int()))
			}
		}
		per, size, part := encodeEvents(fs)
		got := make([]detect.Finding, len(fs))
		for i := range got {
			got[i].ID = fs[i].ID
		}
		if err := decodeEvents(got, per, size, part); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !reflect.DeepEqual(got, fs) {
			t.Fatalf("round %d: the ids read back differ", round)
		}
		if len(fs) > 1 && size[0] > 0 {
			wrong := slices.Clone(size)
			wrong[0]--
			wrong[1]++
			if err := decodeEvents(got, per, wrong, part); err == nil {
				t.Errorf("round %d: sizes moved between findings were read", round)
			}
		}
	}
}

// uvarintLen is the length binary.AppendUvarint gives, at every boundary.
func TestUvarintLen(t *testing.T) {
	for _, n := range []uint64{0, 1, 0x7f, 0x80, 0x3fff, 0x4000, 1<<21 - 1, 1 << 21, 1<<63 - 1, 1 << 63, math.MaxUint64} {
		if got, want := uvarintLen(n), len(binary.AppendUvarint(nil, n)); got != want {
			t.Errorf("uvarintLen(%d) = %d, want %d", n, got, want)
		}
	}
}
