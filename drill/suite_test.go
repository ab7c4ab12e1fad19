package drill_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/eval"
)

// TestDebriefScoresTheDeclaredSuite: a drill that declares the built-in
// suite debriefs the sandbox's controls beside the team's score, on the
// evidence it released and the kill the team recorded: the watchdog
// outlived the kill (background-processes missed).
func TestDebriefScoresTheDeclaredSuite(t *testing.T) {
	s, err := drill.Load(pak)
	if err != nil {
		t.Fatal(err)
	}
	s.Suite = drill.BuiltinSuite
	dir := t.TempDir()
	path := filepath.Join(dir, "answers.yaml")
	os.WriteFile(path, []byte(`team: blue
subject: {agents: [agent-21], at: "14:22:00"}
answers:
  which-agent: {answer: agent-21, at: "14:05:00"}
steps:
  - {step: contain.stop, status: done, at: "14:22:00", contained_at: "14:21:04"}
`), 0o644)
	a, err := drill.LoadAnswers(path)
	if err != nil {
		t.Fatal(err)
	}
	deb, err := drill.RunHeadless(context.Background(), s, a, filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	sc := deb.Controls
	if sc == nil || sc.Suite != "cordon-builtin" || sc.Crossed != eval.RungPersist {
		t.Fatalf("controls: %+v", sc)
	}
	var stop *eval.ControlResult
	for _, tr := range sc.Tests {
		for i, c := range tr.Controls {
			if tr.ID == "process-outlives-kill" && c.Control == "stop background-processes within 1m" {
				stop = &tr.Controls[i]
			}
		}
	}
	if stop == nil || stop.Outcome != eval.Missed {
		t.Errorf("the watchdog's stop: %+v", stop)
	}
	md, err := os.ReadFile(filepath.Join(dir, "out", "debrief.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	score, controls := strings.Index(text, "**Score: "), strings.Index(text, "**Controls (suite cordon-builtin): ")
	if score < 0 || controls < score || strings.Contains(text[score:controls], "##") {
		t.Errorf("the controls' score is not beside the team's:\n%s", text)
	}
	if !strings.Contains(text, "| kill switch: background-processes | 0 | 1 | 0 |") || !strings.Contains(text, "- process-outlives-kill (") {
		t.Errorf("debrief.md lacks the controls' layers or gaps:\n%s", text)
	}
}

// TestScriptWithABadSuite: a script whose suite does not read is refused
// when it is loaded, not at the debrief.
func TestScriptWithABadSuite(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ev.jsonl"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "drill.yaml"), []byte("scenario: x\nevidence: [ev.jsonl]\nsuite: nosuch.yaml\n"), 0o644)
	if _, err := drill.Load(dir); err == nil || !strings.Contains(err.Error(), "suite") {
		t.Errorf("a missing suite file: %v", err)
	}
}
