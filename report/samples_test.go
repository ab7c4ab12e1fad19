package report_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/report"
)

// sampleReport is one sample's report, rendered.
type sampleReport struct {
	name string
	r    report.Report
	html []byte
	md   string
}

// sampleReports builds the report of every sample under sample-incidents/
// (a folder with a ledger), twice, and fails unless both builds give the
// same bytes: the same workspace and journal head, the same report.
func sampleReports(t *testing.T) []sampleReport {
	t.Helper()
	dirs, err := filepath.Glob("../sample-incidents/*/ledger.jsonl")
	if err != nil || len(dirs) < 5 {
		t.Fatalf("samples: %v %v", dirs, err)
	}
	var out []sampleReport
	for _, l := range dirs {
		dir := filepath.Dir(l)
		ws := incidenttest.New(t, dir)
		var first []byte
		var s sampleReport
		for range 2 {
			r, err := report.Build(context.Background(), ws)
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			var h, m bytes.Buffer
			if err := r.WriteHTML(&h); err != nil {
				t.Fatal(err)
			}
			if err := r.WriteMarkdownPictures(&m, "x-"); err != nil {
				t.Fatal(err)
			}
			for _, p := range r.Pictures() {
				h.WriteString(p.SVG)
			}
			if first != nil && !bytes.Equal(first, append(h.Bytes(), m.Bytes()...)) {
				t.Errorf("%s: two builds of the same workspace differ", dir)
			}
			first = append(append([]byte{}, h.Bytes()...), m.Bytes()...)
			s = sampleReport{name: filepath.Base(dir), r: r, html: h.Bytes(), md: m.String()}
		}
		out = append(out, s)
	}
	return out
}

// mdSection is the text of the Markdown section whose heading's slug is
// anchor, up to the next heading of the same level or above.
func mdSection(md, anchor string) string {
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		level := len(l) - len(strings.TrimLeft(l, "#"))
		if level < 2 || !strings.HasPrefix(l[level:], " ") {
			continue
		}
		if strings.ReplaceAll(strings.ToLower(strings.TrimSpace(l[level:])), " ", "-") != anchor {
			continue
		}
		var b strings.Builder
		for _, m := range lines[i+1:] {
			ml := len(m) - len(strings.TrimLeft(m, "#"))
			if ml >= 1 && ml <= level && strings.HasPrefix(m[ml:], " ") {
				break
			}
			b.WriteString(m + "\n")
		}
		return b.String()
	}
	return ""
}

// TestReportSamples checks every sample's report: the first page names
// no event id, every summary sentence links to a section that lists the
// ids it rests on, and (with Chromium) the rendered page's boxes.
func TestReportSamples(t *testing.T) {
	samples := sampleReports(t)
	cited := 0
	for _, s := range samples {
		front, _, _ := strings.Cut(s.md, "## The case in figures")
		if s.r.Name == "" || strings.Contains(s.r.Name, "fixture-incident") {
			t.Errorf("%s: name %q", s.name, s.r.Name)
		}
		if len(s.r.Front.Sentences) != 5 {
			t.Errorf("%s: %d summary sentences, want 5", s.name, len(s.r.Front.Sentences))
		}
		for _, se := range s.r.Front.Sentences {
			sec := mdSection(s.md, se.Section)
			if sec == "" {
				t.Errorf("%s: %q links to #%s, which the report lacks", s.name, se.Text, se.Section)
			}
			for _, id := range se.Events {
				cited++
				if !strings.Contains(sec, "`"+id+"`") {
					t.Errorf("%s: %q rests on %s, which section #%s does not list", s.name, se.Text, id, se.Section)
				}
				if strings.Contains(front, id) {
					t.Errorf("%s: the first page names event id %s", s.name, id)
				}
			}
		}
		if !strings.Contains(s.md, "### Evidence received") || strings.Contains(s.md, "\n## Evidence received") {
			t.Errorf("%s: the evidence received is not in the appendix", s.name)
		}
		for _, p := range s.r.Pictures() {
			if !strings.HasPrefix(p.SVG, "<svg ") || !strings.HasSuffix(p.SVG, "</svg>") || strings.Contains(p.SVG, "<script") || strings.Contains(p.SVG, "href") {
				t.Errorf("%s: %s is not a self-contained SVG", s.name, p.Name)
			}
		}
	}
	if cited == 0 {
		t.Error("no summary sentence of any sample cites an event")
	}
	humans := 0
	for _, s := range samples {
		sec := mdSection(s.md, "human-interventions")
		for _, h := range s.r.Interventions {
			humans++
			if !strings.Contains(sec, "`"+h.Event+"`") {
				t.Errorf("%s: intervention %s not listed under Human interventions", s.name, h.Event)
			}
		}
		if strings.Contains(sec, "assistant_exchange") {
			t.Errorf("%s: assistant exchanges among the human interventions", s.name)
		}
	}
	if humans == 0 {
		t.Error("no sample's evidence records a human intervention")
	}
	if os.Getenv("CORDON_SKIP_BROWSER") == "" {
		renderInBrowser(t, samples)
	}
}

// TestPicturesEscapeHostileText draws every picture from evidence text
// that is markup and terminal escapes: none of it may become markup.
func TestPicturesEscapeHostileText(t *testing.T) {
	evil := `<script>alert(1)</script>"'&<a href="x">` + "\x1b]0;owned\x07"
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	r := report.Report{Generated: t0,
		Layers: []report.LayerStatus{{Title: evil, Summary: evil, Status: incident.CheckNotVerified}},
		Graph: report.Graph{Nodes: []report.Node{{ID: "a", Kind: "agent", Label: evil}, {ID: "c", Kind: "credential", Label: evil, Column: 3}},
			Edges: []report.Edge{{From: "a", To: "c", Acquired: true, Label: evil}}},
		Lanes: report.Lanes{First: t0, Last: t0.Add(time.Hour), Buckets: 2, Rules: []report.Rule{{Time: t0.Add(time.Minute), Label: evil}},
			Lanes: []report.Lane{{Agent: evil, Events: []int64{3, 1}, Denials: []int64{1, 0},
				DataOut: []report.LaneBytes{{Destination: evil, Bytes: 10, First: t0, Last: t0.Add(time.Minute)}}}}},
	}
	// the name is in the print stylesheet's page header too
	r.Name = evil + `"}</style><script>alert(5)</script>`
	var h bytes.Buffer
	if err := r.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(h.String(), "</style>"); n != 1 || strings.Contains(h.String(), "<script") {
		t.Errorf("the name broke out of the stylesheet (%d </style>):\n%.2000s", n, h.String())
	}
	for _, p := range r.Pictures() {
		for _, bad := range []string{"<script", "<a ", `href="`, "\x1b", "\x07"} {
			if strings.Contains(p.SVG, bad) {
				t.Errorf("%s: evidence text %q became part of the SVG:\n%s", p.Name, bad, p.SVG)
			}
		}
		if !strings.Contains(p.SVG, "&lt;script&gt;") {
			t.Errorf("%s does not show the text literally:\n%s", p.Name, p.SVG)
		}
		if err := xml.Unmarshal([]byte(p.SVG), new(struct{ XMLName xml.Name })); err != nil {
			t.Errorf("%s is not well-formed XML: %v", p.Name, err)
		}
	}
}

// TestReportNameFromConfig titles the report with cordon.yaml's name, and
// checks what the first page and the kill switch carry.
func TestReportNameFromConfig(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "case")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cordon.yaml"), []byte("name: Persistence after the kill, run 7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := incident.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Ingest(ctx, []string{"../sample-incidents/persistence-after-kill"}, incident.IngestOptions{Actor: incidenttest.FixtureActor}); err != nil {
		t.Fatal(err)
	}
	pakJournal(t, ws)
	r, err := report.Build(ctx, ws, report.At(reportGenerated), report.BuiltBy("v1.2.3", []string{"cordon", "report", "--incident", "x"}))
	if err != nil {
		t.Fatal(err)
	}
	var m bytes.Buffer
	if err := r.WriteMarkdown(&m); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(m.String(), "# Persistence after the kill, run 7\n") {
		t.Errorf("title: %.80s", m.String())
	}
	if r.Front.Contained || len(r.Front.OpenLayers) != 3 || !strings.Contains(r.Front.Status, "Persisted state cannot tell") {
		t.Errorf("status: %+v", r.Front)
	}
	if len(r.Front.Decisions) != 3 || r.Front.Decisions[1].Who != "pdiaz" || !strings.Contains(r.Front.Decisions[1].Text, "contain.stop done") {
		t.Errorf("decisions: %+v", r.Front.Decisions)
	}
	if !strings.Contains(m.String(), "built by cordon v1.2.3: cordon report --incident x.") || r.Built.JournalHead != r.Journal.Head || r.Built.JournalSeq != r.Journal.Seq {
		t.Errorf("provenance: %+v", r.Built)
	}
	// open items: a step whose layer verifies is not open work
	for _, o := range r.Open {
		if o.Ref == "contain.queued-jobs" || o.Ref == "contain.tool-calls" || o.Kind == "check" {
			t.Errorf("open item that is not open: %+v", o)
		}
	}
	for _, l := range r.Layers {
		if len(l.Queries) == 0 || l.Result == "" {
			t.Errorf("layer %s without its query or result: %+v", l.Title, l)
		}
		if l.Status == incident.CheckNotVerified && len(l.Events) == 0 {
			t.Errorf("layer %s not verified without the ids it counted", l.Title)
		}
	}
}
