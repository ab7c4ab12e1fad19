package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/audit"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// k8sStage is one stage of the request with audit id id, received at
// second sec; a last stage carries its answer.
func k8sStage(id, stage string, sec int) string {
	answer := ""
	if stage == "ResponseComplete" {
		answer = `"responseStatus":{"metadata":{},"code":200},`
	}
	return fmt.Sprintf(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"%s","stage":"%s",`+
		`"requestURI":"/api/v1/namespaces/agent-evals/pods/p-%s","verb":"get","user":{"username":"system:serviceaccount:agent-evals:sb-201-runner"},`+
		`"sourceIPs":["198.51.100.23"],"objectRef":{"resource":"pods","namespace":"agent-evals","name":"p-%s","apiVersion":"v1"},%s`+
		`"requestReceivedTimestamp":"2026-10-14T11:%02d:%02d.000000Z","stageTimestamp":"2026-10-14T11:%02d:%02d.020000Z"}`+"\n",
		id, stage, id, id, answer, sec/60%60, sec%60, sec/60%60, sec%60)
}

func appendText(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
		t.Fatal(err)
	}
}

// mergeCollect keeps what a stream gives, and counts the merged records.
type mergeCollect struct {
	collect
	merged int
}

func (c *mergeCollect) Merged(n int) { c.merged += n }

func k8sID(auditID string) string {
	return evidence.MakeID(audit.FormatK8sAudit, -1, 0, []byte(auditID))
}

func stageTags(ev evidence.Event) []string {
	var out []string
	for _, tag := range ev.Tags {
		if strings.HasPrefix(tag, parse.TagStage) {
			out = append(out, tag)
		}
	}
	return out
}

// openStages counts the events the store holds at an earlier stage.
func openStages(t *testing.T, st evidence.Store) uint64 {
	t.Helper()
	h, err := st.Search(context.Background(), evidence.Request{Query: evidence.Prefix("tags", parse.TagStage), Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return h.Total
}

// The sample's stages of one auditID are one event, and ingesting the file
// again, or a copy of it, adds nothing.
func TestK8sStagesOfOneAuditIDAreOneEventAndReingestAddsNone(t *testing.T) {
	path := filepath.Join("..", "sample-incidents", "cloud-key-after-kill", "audit", "k8s-audit.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		_, rest, _ := strings.Cut(line, `"auditID":"`)
		id, _, _ := strings.Cut(rest, `"`)
		ids[id]++
	}
	st := newStore(t)
	ingestOnce(t, st, &memRejects{}, path)
	if got := st.Counts().Total; got != int64(len(ids)) || len(ids) != 185 {
		t.Fatalf("%d events for %d audit ids, want one each (185)", got, len(ids))
	}
	if n := openStages(t, st); n != 0 {
		t.Errorf("%d requests left at an earlier stage; every one completes in the file", n)
	}
	for id, n := range ids {
		if n != 2 {
			continue
		}
		ev, err := st.Get(context.Background(), k8sID(id))
		if err != nil || ev.Status == "" || !strings.Contains(ev.Raw, `"stage":"ResponseComplete"`) {
			t.Errorf("%s: %v, status %q, raw %.120s", id, err, ev.Status, ev.Raw)
		}
		break
	}
	copyPath := filepath.Join(t.TempDir(), "k8s-audit-copy.jsonl")
	if err := os.WriteFile(copyPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res := ingestOnce(t, st, &memRejects{}, path, copyPath)
	if res[0].Events != 0 || res[1].Events != 185 || res[1].New != 0 {
		t.Errorf("again: %d events; the copy %d events, %d new; want 0, 185, 0", res[0].Events, res[1].Events, res[1].New)
	}
	if got := st.Counts().Total; got != 185 {
		t.Errorf("%d events after ingesting again, want 185", got)
	}
}

// A request whose last stage is not yet in the log is an event of its
// own, tagged with its stage; when the log grows with the rest, the next
// run replaces it (one event, the answer in it), through the prepared
// pipeline and the plain Index path alike.
func TestLoneStageIsReplacedWhenItsRequestCompletes(t *testing.T) {
	for name, st := range map[string]evidence.Store{"prepared": newStore(t), "plain": &failingStore{Store: newStore(t)}} {
		path := filepath.Join(t.TempDir(), "k8s-audit.jsonl")
		appendText(t, path, k8sStage("c1", "RequestReceived", 1), k8sStage("c1", "ResponseComplete", 1), k8sStage("a1", "RequestReceived", 2))
		res := ingestOnce(t, st, &memRejects{}, path)
		if r := res[0]; r.Events != 2 || r.New != 2 || r.Merged != 1 {
			t.Fatalf("%s: first run %+v", name, r)
		}
		ev, err := st.Get(context.Background(), k8sID("a1"))
		if err != nil || ev.Status != "" || !slices.Equal(stageTags(ev), []string{"stage:RequestReceived"}) {
			t.Fatalf("%s: lone stage %v %+v", name, err, ev)
		}
		appendText(t, path, k8sStage("a1", "ResponseStarted", 2), k8sStage("c2", "ResponseComplete", 3), k8sStage("a1", "ResponseComplete", 2))
		res = ingestOnce(t, st, &memRejects{}, path)
		if r := res[0]; r.ResumedAt == 0 || r.Events != 2 || r.Stored != 2 || r.New != 1 || r.Merged != 1 {
			t.Errorf("%s: second run: resumed at %d, %d events, %d stored, %d new, %d merged; want >0, 2, 2, 1, 1",
				name, r.ResumedAt, r.Events, r.Stored, r.New, r.Merged)
		}
		ev, err = st.Get(context.Background(), k8sID("a1"))
		if err != nil || ev.Status != "200" || ev.Decision != evidence.DecisionAllow || len(stageTags(ev)) != 0 ||
			ev.Time.Second() != 2 || !strings.Contains(ev.Raw, "ResponseComplete") || !strings.HasSuffix(ev.Origin, ":6") {
			t.Errorf("%s: replaced %v %+v", name, err, ev)
		}
		h, err := st.Search(context.Background(), evidence.Request{Query: evidence.MustParse("decision:allow"), Limit: 1})
		if st.Counts().Total != 3 || openStages(t, st) != 0 || err != nil || h.Total != 3 {
			t.Errorf("%s: %d events, %d open, %d allowed (%v); want 3, 0, 3", name, st.Counts().Total, openStages(t, st), h.Total, err)
		}
	}
}

// A request's stages in two files (a log rotated between them) are one
// event in whichever order the files come.
func TestStagesInTwoFilesAreOneEvent(t *testing.T) {
	dir := t.TempDir()
	old, cur := filepath.Join(dir, "audit.log.1"), filepath.Join(dir, "audit.log")
	appendText(t, old, k8sStage("a1", "RequestReceived", 1))
	appendText(t, cur, k8sStage("a1", "ResponseComplete", 1))
	for _, files := range [][]string{{old, cur}, {cur, old}} {
		st := newStore(t)
		res := ingestOnce(t, st, &memRejects{}, files...)
		ev, err := st.Get(context.Background(), k8sID("a1"))
		if st.Counts().Total != 1 || err != nil || ev.Status != "200" || len(stageTags(ev)) != 0 {
			t.Errorf("%v: %d events, %v %+v", files, st.Counts().Total, err, ev)
		}
		// read twice, one event: the second file's record is merged into it
		if res[0].Events+res[1].Events+res[0].Merged+res[1].Merged != 2 || res[0].New+res[1].New != 1 {
			t.Errorf("%v: results %+v", files, res)
		}
	}
}

// While a stage waits for its request's last one, the checkpoint stays at
// its record: a run that stops meanwhile loses nothing, and the run that
// resumes there gives the request whole.
func TestCheckpointNeverPassesAHeldStage(t *testing.T) {
	lines := []string{k8sStage("c0", "ResponseComplete", 0), k8sStage("a1", "RequestReceived", 1),
		k8sStage("c1", "ResponseComplete", 2), k8sStage("c2", "ResponseComplete", 3), k8sStage("a1", "ResponseComplete", 1)}
	in := strings.Join(lines, "")
	var commits []Position
	c := &mergeCollect{}
	end, err := Stream(strings.NewReader(in), "k8s.jsonl", audit.NewK8sAudit(), Position{}, c, func(p Position) error {
		commits = append(commits, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	held := Position{Offset: int64(len(lines[0])), Line: 2}
	want := []Position{held, held, held, held, {Offset: int64(len(in)), Line: 6}}
	if !slices.Equal(commits, want) || end != want[4] {
		t.Errorf("commits %v, end %v; want %v", commits, end, want)
	}
	// A run that stopped after c2 resumes at a1's first stage.
	c = &mergeCollect{}
	if _, err := Stream(strings.NewReader(in[held.Offset:]), "k8s.jsonl", audit.NewK8sAudit(), held, c, nil); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range c.events {
		got = append(got, ev.Origin+" "+ev.Status)
	}
	if strings.Join(got, ", ") != "k8s.jsonl:3 200, k8s.jsonl:4 200, k8s.jsonl:5 200" || c.merged != 1 {
		t.Errorf("resumed: %v, %d merged", got, c.merged)
	}
}

// A run that fails partway, its requests' stages spread over batches,
// resumes to one event per request, the one never answered included: the
// checkpoints written before the failure stayed at its line.
func TestInterruptedRunLosesNoStage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k8s-audit.jsonl")
	lines := []string{k8sStage("never", "RequestReceived", 0)} // its answer is never logged
	for i := 0; i < 40; i++ {
		lines = append(lines, k8sStage(fmt.Sprint("r", i), "RequestReceived", i))
		if i >= 3 {
			lines = append(lines, k8sStage(fmt.Sprint("r", i-3), "ResponseComplete", i-3))
		}
	}
	for i := 37; i < 40; i++ {
		lines = append(lines, k8sStage(fmt.Sprint("r", i), "ResponseComplete", i))
	}
	appendText(t, path, lines...)
	st := newStore(t)
	fs := &failingStore{Store: st, failAt: 3}
	first, err := Run(context.Background(), []string{path}, Options{Store: fs, Rejects: &memRejects{}, BatchSize: 4})
	if !errors.Is(err, errStore) {
		t.Fatalf("run on a failing store: %v", err)
	}
	res := ingestOnce(t, st, &memRejects{}, path)
	if st.Counts().Total != 41 || openStages(t, st) != 1 || first[0].New+res[0].New != 41 {
		t.Errorf("%d events, %d open, %d+%d new; want 41, 1 (the request never answered), 41",
			st.Counts().Total, openStages(t, st), first[0].New, res[0].New)
	}
	if ev, err := st.Get(context.Background(), k8sID("never")); err != nil || !slices.Equal(stageTags(ev), []string{"stage:RequestReceived"}) {
		t.Errorf("the request never answered: %v %+v", err, ev)
	}
}

// Past maxHeld requests waiting at once, the oldest are given as they
// stand and replaced when their last stage comes: still one event each.
func TestManyOpenRequestsStayOneEventEach(t *testing.T) {
	n := maxHeld + 4
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(k8sStage(fmt.Sprint("r", i), "RequestReceived", i))
	}
	for i := 0; i < n; i++ {
		b.WriteString(k8sStage(fmt.Sprint("r", i), "ResponseComplete", i))
	}
	path := filepath.Join(t.TempDir(), "k8s-audit.jsonl")
	appendText(t, path, b.String())
	st := newStore(t)
	res, err := Run(context.Background(), []string{path}, Options{Store: st, Rejects: &memRejects{}})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; st.Counts().Total != int64(n) || openStages(t, st) != 0 || r.Events != n || r.New != n || r.Merged != n {
		t.Errorf("%d events, %d open; result %d events, %d new, %d merged; want %d, 0, %d each", st.Counts().Total, openStages(t, st), r.Events, r.New, r.Merged, n, n)
	}
}
