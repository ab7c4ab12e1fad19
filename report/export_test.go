package report_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/report"
)

func TestReportExportTimesketch(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/persistence-after-kill")
	ctx := context.Background()
	var out bytes.Buffer
	n, _, err := report.Timesketch(ctx, ws, evidence.All(), &out)
	if err != nil {
		t.Fatal(err)
	}
	total := ws.Counts().Total
	if int64(n) != total {
		t.Errorf("exported %d of %d events", n, total)
	}
	lines, last, descs := 0, time.Time{}, map[string]bool{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines++
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		for _, k := range []string{"message", "datetime", "timestamp_desc", "timestamp", "id", "source", "format", "kind"} {
			if v, ok := m[k]; !ok || v == "" {
				t.Fatalf("line %d has no %s: %s", lines, k, sc.Text())
			}
		}
		if _, ok := m["raw"]; ok {
			t.Fatalf("line %d carries the raw record", lines)
		}
		dt := m["datetime"].(string)
		tm, err := time.Parse(time.RFC3339Nano, dt)
		if err != nil || !strings.HasSuffix(dt, "Z") || len(dt) != len("2006-01-02T15:04:05.000000Z") {
			t.Fatalf("line %d datetime %q: %v", lines, dt, err)
		}
		if tm.Before(last) {
			t.Fatalf("line %d at %s is before the line above (%s)", lines, tm, last)
		}
		if us := int64(m["timestamp"].(float64)); us != tm.UnixMicro() {
			t.Fatalf("line %d timestamp %d, datetime %s", lines, us, dt)
		}
		last = tm
		descs[m["timestamp_desc"].(string)] = true
	}
	if lines != n {
		t.Errorf("%d lines, %d reported", lines, n)
	}
	for _, d := range []string{"Request Sent", "Process Executed", "Session Started", "Tool Called"} {
		if !descs[d] {
			t.Errorf("no %q among %v", d, descs)
		}
	}

	out.Reset()
	n, _, err = report.Timesketch(ctx, ws, evidence.MustParse("agent:agent-21"), &out)
	if err != nil || int64(n) != ws.Counts().Fields["agent"]["agent-21"] || strings.Count(out.String(), "\n") != n {
		t.Errorf("agent-21: %d lines, %v", n, err)
	}
}

func TestReportExportMessage(t *testing.T) {
	ws := incidenttest.New(t, incidenttest.WriteFile(t, "ledger.jsonl", []byte(hostileLedger)))
	var out bytes.Buffer
	if _, _, err := report.Timesketch(context.Background(), ws, evidence.MustParse("kind:policy_decision"), &out); err != nil {
		t.Fatal(err)
	}
	var l report.TimesketchLine
	if err := json.Unmarshal(out.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(l.Message, "agent-x policy_decision deny 169.254.169.254: deny by egress.block-metadata") || strings.Contains(l.Message, "\x1b") {
		t.Errorf("message %q", l.Message)
	}
	if l.TimestampDesc != "Policy Decided" || l.Datetime != "2026-07-21T10:00:05.100000Z" || l.Decision != "deny" || l.Policy != "egress.block-metadata" {
		t.Errorf("line %+v", l)
	}
}

// Timesketch export wrote raw U+009B and U+202E (--json escapes them): a
// C1 CSI or a bidi override in a command line reached whatever terminal
// or viewer the JSONL was opened in.
func TestTimesketchExportEscapesC1AndBidi(t *testing.T) {
	const cmd = "curl x\u009b2J\u009d0;pwned\u009c \u202egnp.exe \U000e0041"
	ledger := `{"v":1,"ts":"2026-07-21T10:00:05Z","type":"tool_call","agent":"agent-x","session":"s-1","call_id":"c-1","tool":"bash","args":{"cmd":"` + cmd + `"}}` + "\n"
	ws := incidenttest.New(t, incidenttest.WriteFile(t, "ledger.jsonl", []byte(ledger)))
	var out bytes.Buffer
	if _, _, err := report.Timesketch(context.Background(), ws, evidence.All(), &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.ContainsAny(s, "\u009b\u009d\u009c\u202e\U000e0041") || !strings.Contains(s, `\u009b2J`) || !strings.Contains(s, `\u202e`) {
		t.Errorf("export %q", s)
	}
	var l report.TimesketchLine
	if err := json.Unmarshal(out.Bytes(), &l); err != nil || l.Cmdline != cmd {
		t.Errorf("does not decode to the same command line: %v %q", err, l.Cmdline)
	}
}

// The team's work travels with the events: a mark as the starred tag, a
// note as a comment with who wrote it, findings and capabilities as tags
// and attributes on their evidence.
func TestTimesketchCarriesTheCasework(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	ctx := context.Background()
	findings, _ := ws.CachedFindings(ctx)
	marked, err := ws.Get(ctx, findings[0].Events[0])
	if err != nil {
		t.Fatal(err)
	}
	who := journal.Actor{Name: "pdiaz", Via: journal.ViaCLI}
	marks, _ := ws.Marks()
	if _, err := marks.Toggle(ctx, who, marked); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Note(ctx, who, "", marked.ID, "first use of the borrowed key"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, _, err := report.Timesketch(ctx, ws, evidence.All(), &out); err != nil {
		t.Fatal(err)
	}
	byID := map[string]report.TimesketchLine{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l report.TimesketchLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		byID[l.ID] = l
	}
	l := byID[marked.ID]
	if !l.Starred || !slices.Contains(l.Tag, "cordon:starred") || !slices.Contains(l.Tag, "cordon:noted") ||
		len(l.Comments) != 1 || !strings.HasPrefix(l.Comments[0], "pdiaz at ") || !strings.HasSuffix(l.Comments[0], ": first use of the borrowed key") {
		t.Errorf("the marked and noted event: %+v", l.Annotation)
	}
	for _, f := range findings {
		for _, id := range f.Events {
			if a := byID[id].Annotation; !slices.Contains(a.Findings, f.ID) || !slices.Contains(a.Tag, "finding:"+f.Detector) {
				t.Fatalf("event %s of finding %s: %+v", id, f.ID, a)
			}
		}
	}
	caps, _ := ws.Capabilities(ctx)
	var acquired int
	for _, c := range caps.For("agent-12") {
		if c.Value == "px-s228" {
			for _, u := range c.Uses {
				if a := byID[u.ID].Annotation; slices.Contains(a.Tag, "capability:acquired") && slices.Contains(a.Capabilities, "credential px-s228 (acquired, agent-12)") {
					acquired++
				}
			}
		}
	}
	if acquired == 0 {
		t.Error("no use of px-s228 carries its acquired capability")
	}
}
