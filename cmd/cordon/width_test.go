package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// cordonAt runs a command in-process as on a terminal of width columns.
func cordonAt(width int, args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	ev := &env{stdin: strings.NewReader(""), stdout: &o, stderr: &e, columns: width}
	code = exitCode(&e, execute(context.Background(), ev, args))
	return code, o.String(), e.String()
}

// widthCommands are the commands that print tables and lists, in an
// order that gives each something to show: check journals results that
// steps, journal and verdict then read, and a suppression gives suppress
// list a row.
var widthCommands = [][]string{
	{"findings"}, {"findings", "--by", "agent"}, {"agents"}, {"stats"}, {"stats", "--by", "dst_host"},
	{"search", "--limit", "200", "kind:tool_call"}, {"search", "--limit", "200", "decision:deny"}, {"search", "--limit", "200", "source:proxy"},
	{"check"}, {"steps"}, {"verdict"}, {"subject"}, {"journal"}, {"evidence", "verify"}, {"indicators"},
	{"rules", "check"}, {"suppress", "list"}, {"rejects"}, {"journal", "verify"},
}

// TestEveryTableFitsEightyColumns runs every command that prints a table
// or a list on every bundled sample, as on an 80-column terminal: no line
// it prints is wider (issue 33: the findings table was 86).
func TestEveryTableFitsEightyColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests every sample")
	}
	samples, err := filepath.Glob(filepath.Join("..", "..", "sample-incidents", "*", "ledger.jsonl"))
	if err != nil || len(samples) < 5 {
		t.Fatalf("samples: %v %v", samples, err)
	}
	const width = 80
	for _, ledger := range samples {
		sample := filepath.Dir(ledger)
		t.Run(filepath.Base(sample), func(t *testing.T) {
			ws := filepath.Join(t.TempDir(), "incident")
			if code, _, errOut := cordon("ingest", "--incident", ws, sample); code != 0 {
				t.Fatalf("ingest: %d %s", code, errOut)
			}
			code, out, errOut := cordon("findings", "--incident", ws, "--json")
			if code != 0 {
				t.Fatalf("findings: %d %s", code, errOut)
			}
			// busy-benign has no finding: findings and suppress list may
			// print nothing there
			quiet := map[string]bool{"rejects": true, "rules check": true}
			if out == "" {
				quiet["findings"], quiet["suppress list"] = true, true
			}
			if first, _, ok := strings.Cut(out, "\n"); ok {
				det := jsonField(t, first, "detector")
				agent := jsonField(t, first, "agent")
				if code, _, errOut := cordon("suppress", "--incident", ws, "--detector", det, "--agent", agent,
					"a reason long enough to run past the edge of an eighty-column terminal when it is listed"); code != 0 {
					t.Fatalf("suppress: %d %s", code, errOut)
				}
			}
			for _, args := range widthCommands {
				name := strings.Join(args, " ")
				code, out, errOut := cordonAt(width, append(args, "--incident", ws)...)
				if code != exitOK && code != exitLive && code != exitCannotTell {
					t.Errorf("%s: exit %d: %s", name, code, errOut)
					continue
				}
				if out == "" && !quiet[name] {
					t.Errorf("%s printed nothing: %s", name, errOut)
				}
				for i, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
					if n := ansi.StringWidth(line); n > width {
						t.Errorf("%s: line %d is %d columns:\n%s", name, i+1, n, line)
					}
				}
			}
		})
	}
}

// jsonField is a string field of a JSON object line.
func jsonField(t *testing.T, line, field string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	s, _ := m[field].(string)
	return s
}

// TestPipesGetWholeValues: the width is a terminal's; written into a pipe
// the same commands keep every value whole. On the terminal the findings
// table cuts the explanation, never the detector.
func TestPipesGetWholeValues(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "incident")
	sample := filepath.Join("..", "..", "sample-incidents", "persistence-after-kill")
	if code, _, errOut := cordon("ingest", "--incident", ws, sample); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	_, narrow, _ := cordonAt(80, "findings", "--incident", ws)
	_, piped, _ := cordon("findings", "--incident", ws)
	if !strings.Contains(narrow, "…") || !strings.Contains(narrow, "persistence-after-session-end") {
		t.Errorf("80 columns: the explanation is not cut, or the detector is:\n%s", narrow)
	}
	if strings.Contains(piped, "…") || !strings.Contains(piped, "persistence-after-session-end") {
		t.Errorf("pipe: a value is cut:\n%s", piped)
	}
	_, narrow, _ = cordonAt(80, "findings", "--by", "agent", "--incident", ws)
	if strings.Contains(narrow, "…") || !strings.Contains(narrow, "persistence-files); 3 episodes") {
		t.Errorf("80 columns: the ranking's reason is cut rather than wrapped:\n%s", narrow)
	}
}

// writeWrapped keeps every character of a line and no line is wider than
// the terminal: a long path breaks inside itself, words at spaces.
func TestWriteWrappedKeepsEverything(t *testing.T) {
	for _, line := range []string{
		"proxy   14.5% of the 317 events that carry an address, container, pod or credential come from an agent's session (46)",
		"   2  2026-12-04T04:04:35Z  root (cli)  evidence_received  ../../sample-incidents/cloud-key-after-kill/audit/cloudtrail/111122223333_CloudTrail_eu-west-1_20260812T0930Z.json.gz: cloudtrail",
		"short",
		"x" + strings.Repeat("y", 200),
	} {
		for _, width := range []int{0, 40, 80} {
			var b strings.Builder
			writeWrapped(&b, width, "      ", line)
			out := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			var joined string
			for i, l := range out {
				if width > 0 && ansi.StringWidth(l) > width {
					t.Errorf("width %d: line %d is %d columns: %q", width, i, ansi.StringWidth(l), l)
				}
				joined += strings.TrimSpace(l)
			}
			if strip := strings.ReplaceAll(line, " ", ""); strings.ReplaceAll(joined, " ", "") != strip {
				t.Errorf("width %d: %q wrapped to\n%s", width, line, b.String())
			}
			if width == 0 && len(out) != 1 {
				t.Errorf("a pipe gets the line whole: %q", b.String())
			}
		}
	}
}

// A rejected record's reason and start fit the terminal too (no bundled
// sample has one).
func TestRejectsFitEightyColumns(t *testing.T) {
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	long := `{"v":1,"ts":"2026-07-21T10:00:00Z","type":"tool_call","agent":"agent-1","args":{"cmd":"` + strings.Repeat("curl -s https://example.com/x ", 12) + `"}`
	os.WriteFile(src, []byte(`{"v":1,"ts":"2026-07-21T10:00:00Z","type":"summary","agent":"agent-1","text":"ok"}`+"\n"+long+"\n"), 0o600)
	ws := filepath.Join(t.TempDir(), "incident")
	if code, _, errOut := cordon("ingest", "--incident", ws, src); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	code, out, errOut := cordonAt(80, "rejects", "--incident", ws)
	if code != 0 || !strings.Contains(out, "ledger.jsonl:2") {
		t.Fatalf("rejects: %d %q %s", code, out, errOut)
	}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if n := ansi.StringWidth(line); n > 80 {
			t.Errorf("a line of %d columns: %s", n, line)
		}
	}
}
