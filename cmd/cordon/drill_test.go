package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// drillDebrief is what the test reads of a debrief.json.
type drillDebrief struct {
	Scenario string `json:"scenario"`
	Score    struct {
		Right, Wrong, Unanswered, Total int
		ToJudge                         int `json:"to_judge"`
	} `json:"score"`
	Questions []struct {
		ID, Kind, Given, Verdict, Why string
	} `json:"questions"`
	Detect    *struct{ At time.Time } `json:"time_to_detect"`
	Attribute *struct{ At time.Time } `json:"time_to_attribute"`
	Contain   *struct {
		At  time.Time
		How string
	} `json:"time_to_contain"`
	Called *struct {
		At, Kill  time.Time
		Contained bool
		Headline  string
		OpenThen  []string `json:"open_then"`
	} `json:"contain_called"`
	Steps struct {
		Missed []string `json:"missed"`
	} `json:"steps"`
	Findings []struct {
		Agent, Detector string
		Surfaced        bool
	} `json:"findings"`
}

// TestDrillSamples runs every sample incident's drill headless with the
// answers of a team that gets it right and of a tired team, and checks the
// score, the milestones and that the debrief comes back from the workspace.
func TestDrillSamples(t *testing.T) {
	ts := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		sample string
		// contained is the right team's contained_at (zero: nothing to
		// contain); wrong, unanswered: the tired team's verdicts.
		contained         time.Time
		wrong, unanswered int
	}{
		{"persistence-after-kill", ts("2026-09-02T15:05:31Z"), 4, 2},
		{"egress-probe-exfil", ts("2026-07-21T10:47:21Z"), 4, 2},
		{"credential-theft", ts("2026-08-11T10:38:20Z"), 4, 2},
		{"busy-benign", time.Time{}, 3, 3},
		{"shared-volume-token", ts("2026-09-23T11:12:15Z"), 5, 2},
		{"cloud-key-after-kill", ts("2026-10-14T11:27:40Z"), 4, 2},
	} {
		t.Run(c.sample, func(t *testing.T) {
			scenario := filepath.Join("..", "..", "sample-incidents", c.sample)
			run := func(team string) drillDebrief {
				t.Helper()
				out := filepath.Join(t.TempDir(), team)
				answers := filepath.Join(scenario, "drill-answers", team+".yaml")
				code, stdout, stderr := cordon("drill", scenario, "--headless", "--answers", answers, "--out", out)
				if code != 0 {
					t.Fatalf("drill %s %s: exit %d\n%s%s", c.sample, team, code, stdout, stderr)
				}
				b, err := os.ReadFile(filepath.Join(out, "debrief.json"))
				if err != nil {
					t.Fatal(err)
				}
				var d drillDebrief
				if err := json.Unmarshal(b, &d); err != nil {
					t.Fatal(err)
				}
				if d.Scenario != c.sample {
					t.Errorf("%s: scenario %q", team, d.Scenario)
				}
				// The same score comes back from the workspace, in Markdown.
				code, md, stderr := cordon("drill", "debrief", filepath.Join(out, "workspace"))
				want := fmt.Sprintf("**Score: %d of %d right**", d.Score.Right, d.Score.Total)
				if code != 0 || !strings.Contains(md, want) {
					t.Errorf("%s: drill debrief: exit %d, want %q in\n%s%s", team, code, want, md, stderr)
				}
				if !strings.Contains(stdout, fmt.Sprintf("%d of %d right (%d wrong, %d unanswered", d.Score.Right, d.Score.Total, d.Score.Wrong, d.Score.Unanswered)) {
					t.Errorf("%s: drill printed %q", team, stdout)
				}
				if t.Failed() {
					for _, q := range d.Questions {
						t.Logf("%s %s: %q %s %s", team, q.ID, q.Given, q.Verdict, q.Why)
					}
				}
				return d
			}

			right := run("right")
			text := 0
			for _, q := range right.Questions {
				if q.Kind == "text" {
					text++
				}
			}
			if s := right.Score; s.Right != s.Total-text || s.Wrong != 0 || s.Unanswered != 0 || s.ToJudge != text || s.Total < 5 || s.Total > 7 {
				t.Errorf("right: score %+v, want every one of %d non-text questions right", s, s.Total-text)
			}
			for _, f := range right.Findings {
				if !f.Surfaced {
					t.Errorf("right: expected finding %s on %s not surfaced", f.Detector, f.Agent)
				}
			}
			if len(right.Steps.Missed) != 0 {
				t.Errorf("right: missed steps %v", right.Steps.Missed)
			}
			if right.Detect == nil {
				t.Error("right: never detected")
			}
			if c.contained.IsZero() {
				// Nothing escaped: nothing to attribute or contain, and no
				// expected finding.
				if right.Contain != nil || right.Attribute != nil || len(right.Findings) != 0 {
					t.Errorf("right: a benign drill contained %+v, attributed %+v, expects %+v", right.Contain, right.Attribute, right.Findings)
				}
			} else {
				// the call is recorded with the kill time the team gave; time
				// to contain is credited only when the case's Assessment has
				// every capability stopped (none of these samples' claimed
				// ends is enough for that)
				switch {
				case right.Called == nil || right.Attribute == nil:
					t.Errorf("right: the call %+v, attribute %+v", right.Called, right.Attribute)
				case !right.Called.Kill.Equal(c.contained):
					t.Errorf("right: killed at %v, want %v", right.Called.Kill, c.contained)
				case (right.Contain != nil) != right.Called.Contained:
					t.Errorf("right: time to contain %+v, yet the Assessment says contained %v (%s)", right.Contain, right.Called.Contained, right.Called.Headline)
				case right.Attribute.At.After(right.Called.At):
					t.Errorf("right: attributed at %v, after the call at %v", right.Attribute.At, right.Called.At)
				}
			}

			wrong := run("wrong")
			if s := wrong.Score; s.Wrong != c.wrong || s.Unanswered != c.unanswered || s.Right+s.Wrong+s.Unanswered+s.ToJudge != s.Total || s.Total != right.Score.Total {
				t.Errorf("wrong: score %+v, want %d wrong and %d unanswered", s, c.wrong, c.unanswered)
			}
			if wrong.Contain != nil && wrong.Contain.At.Equal(c.contained) {
				t.Errorf("wrong: contained at the right time %v", wrong.Contain.At)
			}
		})
	}
}

// A held-back file listed in the evidence too would be released from the
// start and staged twice: the script is refused.
func TestDrillEvidenceNamedTwice(t *testing.T) {
	dir := t.TempDir()
	script := "scenario: dup\nevidence: [ledger.jsonl]\ninjects:\n  - {at: \"+5m\", evidence: [./ledger.jsonl]}\n"
	if err := os.WriteFile(filepath.Join(dir, "drill.yaml"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	answers := filepath.Join(dir, "answers.yaml")
	if err := os.WriteFile(answers, []byte("team: blue\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cordon("drill", dir, "--headless", "--answers", answers, "--out", filepath.Join(dir, "out"))
	if code == 0 || !strings.Contains(stderr, "named twice") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestDrillConsoleUsage: the console needs a terminal, a known role, and
// takes no answers file.
func TestDrillConsoleUsage(t *testing.T) {
	scenario := filepath.Join("..", "..", "sample-incidents", "persistence-after-kill")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", filepath.Join(t.TempDir(), "a")}, "needs a terminal"},
		{[]string{"--role", "boss"}, `--role "boss"`},
		{[]string{"--answers", "x.yaml"}, "--answers is for --headless"},
	} {
		code, _, stderr := cordon(append([]string{"drill", scenario}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr)
		}
	}
}

// TestServeDrillUsage: a served drill needs the facilitators' keys, and
// facilitators need a drill.
func TestServeDrillUsage(t *testing.T) {
	scenario := filepath.Join("..", "..", "sample-incidents", "persistence-after-kill")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--drill", scenario}, "--drill needs --facilitators"},
		{[]string{"--incident", t.TempDir(), "--facilitators", "f"}, "are for --drill"},
		{[]string{"--incident", t.TempDir(), "--drill", scenario}, "--incident DIR or --drill SCENARIO"},
	} {
		code, _, stderr := cordon(append([]string{"serve"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr)
		}
	}
}
