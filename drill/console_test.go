package drill_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/journal"
)

func TestStepSpeed(t *testing.T) {
	for _, c := range []struct {
		cur  float64
		dir  int
		want float64
	}{
		{60, 1, 120}, {120, 1, 300}, {600, 1, 600}, {45, 1, 60},
		{60, -1, 10}, {10, -1, 1}, {1, -1, 1}, {45, -1, 10}, {700, -1, 600},
	} {
		if got := drill.StepSpeed(c.cur, c.dir); got != c.want {
			t.Errorf("StepSpeed(%g, %d) = %g, want %g", c.cur, c.dir, got, c.want)
		}
	}
}

// TestEndReleasesEverythingAndDebriefs: End fires the injects left,
// releases the rest of the evidence, and writes the debrief, where the
// last answer to a question is the one scored.
func TestEndReleasesEverythingAndDebriefs(t *testing.T) {
	s, err := drill.Load(pak)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	d, err := drill.Start(ctx, s, filepath.Join(dir, "workspace"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	team := journal.Actor{Name: "team", Via: journal.ViaConsole}
	for _, a := range []string{"agent-17", "agent-21"} {
		if _, err := d.Answer(ctx, team, "which-agent", a); err != nil {
			t.Fatal(err)
		}
	}
	es, err := d.WS.JournalEntries()
	if err != nil {
		t.Fatal(err)
	}
	last := drill.LatestAnswers(es)
	if _, a, _ := drill.AnswerOf(last["which-agent"]); len(last) != 1 || a != "agent-21" {
		t.Errorf("latest answers: %+v", last)
	}
	deb, fired, err := d.End(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(fired) != len(s.Inject) || !d.Clock.Ended() || !d.Clock.Paused() {
		t.Errorf("End fired %d of %d injects; ended %v, paused %v", len(fired), len(s.Inject), d.Clock.Ended(), d.Clock.Paused())
	}
	if d.Released() == 0 || deb.Score.Right != 1 {
		t.Errorf("released %d, score %+v", d.Released(), deb.Score)
	}
	es, err = d.WS.JournalEntries()
	if err != nil {
		t.Fatal(err)
	}
	var stamps []string
	for _, e := range es {
		if e.Type == journal.EntryDrillInject {
			stamps = append(stamps, e.Time.UTC().Format("15:04:05"))
		}
	}
	if got := strings.Join(stamps, " "); got != "14:21:03 14:35:00 14:40:05 15:02:50" {
		t.Errorf("the injects End fired are stamped %s, not at their own times", got)
	}
	for _, f := range []string{"debrief.md", "debrief.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
