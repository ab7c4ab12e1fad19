package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/report"
)

// The -update flag rewrites golden files. Registered only if no other test
// file of the package did, so the two cannot clash.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite testdata golden files")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run go test ./report -run %s -update and review the diff):\n%s", name, path, t.Name(), firstDiff(got, string(want)))
	}
}

// firstDiff shows the first line that differs.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n--- got\n" + gl + "\n--- want\n" + wl
		}
	}
	return ""
}

// pakKill is when the on-call engineer killed agent-21's session in the
// persistence-after-kill sample.
var pakKill = time.Date(2026, 9, 2, 14, 21, 3, 0, time.UTC)

// reportGenerated is the fixed generation time of the golden reports.
var reportGenerated = time.Date(2026, 9, 2, 16, 0, 0, 0, time.UTC)

// ticking is a clock that advances a second per reading, from start.
func ticking(start time.Time) func() time.Time {
	n := 0
	return func() time.Time {
		n++
		return start.Add(time.Duration(n) * time.Second)
	}
}

// pakCase is the persistence-after-kill sample with a journal a responder
// could have written at 14:30: the subject named, the session's kill
// recorded, five layers checked (two more never), a note, an action run.
func pakCase(t *testing.T) *incident.Workspace {
	t.Helper()
	ws := incidenttest.New(t, "../sample-incidents/persistence-after-kill")
	pakJournal(t, ws)
	return ws
}

// appendEntry journals e as another writer of ws would, stamped by ws's
// clock: the entries no use case of these tests writes.
func appendEntry(ctx context.Context, ws *incident.Workspace, e journal.Entry) (journal.Entry, error) {
	j, err := journal.Open(ws.Dir)
	if err != nil {
		return journal.Entry{}, err
	}
	j.SetClock(ws.Now)
	return j.Append(ctx, e)
}

// pakJournal writes pakCase's journal into ws.
func pakJournal(t *testing.T, ws *incident.Workspace) {
	t.Helper()
	ws.SetClock(ticking(time.Date(2026, 9, 2, 14, 30, 0, 0, time.UTC)))
	ctx := context.Background()
	who := journal.Actor{Name: "pdiaz", Via: journal.ViaCLI}
	if _, err := ws.SetSubject(ctx, who, []string{"agent-21"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.SetStep(ctx, who, "contain.stop", incident.StepDone, pakKill, "session s-305 killed, sandbox kept for forensics"); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Check(ctx, who, "contain.queued-jobs", "contain.tool-calls", "contain.credentials", "contain.processes", "contain.schedules"); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Note(ctx, who, "contain.processes", "", "crond and a nohup'd watcher still run in sb-118"); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.SetStep(ctx, who, "contain.processes", incident.StepStarted, time.Time{}, ""); err != nil {
		t.Fatal(err)
	}
	payload := json.RawMessage(`{"action":"kill-watcher","runs":[{"argv":["kubectl","exec","-n","agent-evals","sandbox-sb-118","--","kill","182095"],"exit_code":0,"took":1200000000}]}`)
	if _, err := appendEntry(ctx, ws, journal.Entry{Actor: who, Type: journal.EntryActionRun, Step: "contain.processes", Text: "Kill the watcher", Payload: payload}); err != nil {
		t.Fatal(err)
	}
}

// stable replaces what a journaled check makes vary from run to run: the
// check's own clock goes into its entry, so the head hash changes.
func stable(s string, r report.Report) string {
	return strings.ReplaceAll(s, r.Journal.Head, "<head hash>")
}

// stableEvidence replaces what the evidence received varies with: where
// the checkout is, who ran the test and when the fixture was ingested.
func stableEvidence(t *testing.T, r *report.Report) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	for i := range r.Evidence {
		e := &r.Evidence[i]
		if rel, err := filepath.Rel(root, e.Path); err == nil {
			e.Path = filepath.ToSlash(rel)
		}
		e.By, e.At = "<user>", reportGenerated
	}
}

func TestReportGolden(t *testing.T) {
	ws := pakCase(t)
	r, err := report.Build(context.Background(), ws, report.At(reportGenerated))
	if err != nil {
		t.Fatal(err)
	}
	stableEvidence(t, &r)
	if len(r.Evidence) != 5 {
		t.Errorf("evidence received: %+v, want the sample's five files", r.Evidence)
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	goldenFile(t, "persistence-after-kill.md", stable(md.String(), r))
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, "persistence-after-kill.json", stable(string(js)+"\n", r))

	s := r.Summary
	if s.SubjectFrom != "journal" || s.SubjectBy != "pdiaz" || len(s.Subject) != 1 || s.Subject[0] != "agent-21" {
		t.Errorf("subject: %+v", s)
	}
	if s.Containment != "4 of 7 kill-switch layers verified; 1 not verified; 2 no evidence available" {
		t.Errorf("containment %q", s.Containment)
	}
	if !r.Journal.OK || r.Journal.Entries != 10+len(r.Evidence) {
		t.Errorf("journal %+v", r.Journal)
	}
	fresh := 0
	for _, l := range r.Layers {
		if l.Source == "report" {
			fresh++
		}
	}
	if fresh != 2 {
		t.Errorf("%d layers checked for the report, want 2 (external, state)", fresh)
	}
	if len(r.Agents) != 1 || len(r.Agents[0].Why) == 0 || len(r.Agents[0].Did.Lines) == 0 {
		t.Fatalf("agents: %+v", r.Agents)
	}
	var gap bool
	for _, w := range r.Agents[0].Why {
		for _, l := range w.Lines {
			if l.Kind == "gap" && strings.Contains(l.Text, "after session s-305 ended") && len(l.Events) > 0 {
				gap = true
			}
		}
	}
	if !gap {
		t.Errorf("no gap after the session's end: %+v", r.Agents[0].Why)
	}
	for _, want := range []string{"kubectl exec -n agent-evals sandbox-sb-118 -- kill 182095 → exit 0", "crond and a nohup'd watcher", "px-s305: egress-proxy:session"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestReportDoesNotWriteTheJournal(t *testing.T) {
	ctx := context.Background()
	// No journal at all: every layer check runs for the report only.
	ws := incidenttest.New(t, "../sample-incidents/persistence-after-kill")
	r, err := report.Build(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(incidenttest.Casework(t, ws)); n != 0 {
		t.Errorf("the report wrote %d journal entries", n)
	}
	if r.Summary.SubjectFrom != "findings" || len(r.Layers) != 7 || r.Layers[0].Source != "report" {
		t.Errorf("subject from %q, layers %+v", r.Summary.SubjectFrom, r.Layers)
	}

	ws = pakCase(t)
	before, err := os.ReadFile(filepath.Join(ws.Dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := report.Build(ctx, ws); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(ws.Dir, "journal.jsonl"))
	if !bytes.Equal(before, after) {
		t.Errorf("the report changed the journal: %d bytes before, %d after", len(before), len(after))
	}
}

// hostileLedger is an agent whose records carry markup and terminal
// escapes: its objective, a command, and the reason of a denial.
const hostileLedger = `{"v":1,"ts":"2026-07-21T10:00:00Z","type":"session_start","agent":"agent-x","session":"s-1","model":"m","objective":"fix <script>alert(1)</script>\u001b]0;owned\u0007","sandbox":{"id":"sb-1","container_id":"c1","ip":"10.0.0.5"},"credentials":[{"id":"tok-1","kind":"api-token","scope":"<img src=x onerror=alert(2)>"}],"tools_allowed":["bash"],"egress_allowlist":["pypi.org"]}
{"v":1,"ts":"2026-07-21T10:00:05Z","type":"tool_call","agent":"agent-x","session":"s-1","call_id":"c-1","tool":"bash","args":{"cmd":"curl http://169.254.169.254/ <script>x</script>\u001b[2J"}}
{"v":1,"ts":"2026-07-21T10:00:05.1Z","type":"policy_decision","agent":"agent-x","session":"s-1","call_id":"c-1","decision":"deny","policy":"egress.block-metadata","reason":"</td><script>alert(3)</script>\u001b[31m","target":"169.254.169.254"}
{"v":1,"ts":"2026-07-21T10:00:06Z","type":"summary","agent":"agent-x","session":"s-1","text":"done <script>alert(4)</script>\u001b[1A"}
`

func TestReportEscapesHostileEvidence(t *testing.T) {
	ctx := context.Background()
	ws := incidenttest.New(t, incidenttest.WriteFile(t, "ledger.jsonl", []byte(hostileLedger)))
	if _, err := ws.SetSubject(ctx, journal.Actor{Name: "oncall", Via: journal.ViaCLI}, []string{"agent-x"}); err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(ctx, ws, report.At(reportGenerated))
	if err != nil {
		t.Fatal(err)
	}
	if js, _ := json.Marshal(r); bytes.Contains(js, []byte(":null")) {
		t.Errorf("the JSON report has null lists (tools expect []): %s", js)
	}
	var html, md bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	if strings.Count(h, "<script") != 0 || strings.Contains(h, "<img") || strings.Contains(h, "</td><script") {
		t.Errorf("evidence markup reached the HTML:\n%s", h)
	}
	if strings.ContainsAny(h, "\x1b\x07") || strings.ContainsAny(md.String(), "\x1b\x07") {
		t.Error("a terminal escape reached the report")
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `\x1b]0;owned\x07`, "&lt;img src=x"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	m := md.String()
	if regexp.MustCompile(`(^|[^\\])<(script|img|/td)`).MatchString(m) {
		t.Errorf("evidence markup reached the Markdown:\n%s", m)
	}
	if !strings.Contains(m, `\<script\>alert(1)\</script\>`) {
		t.Errorf("Markdown does not show the objective literally:\n%s", m)
	}
	for _, ext := range []string{"<link", "<img", "<iframe", "@import", "url("} {
		if strings.Contains(h, ext) {
			t.Errorf("the HTML loads something from outside itself: %s", ext)
		}
	}
}
