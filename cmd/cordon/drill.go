package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cordon-ir/cordon/drill"
)

const drillArgs = "SCENARIO --headless --answers FILE [--out DIR] | debrief DIR [--json]"

// cmdDrill runs a tabletop drill over a sample incident, or debriefs one.
func cmdDrill(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "debrief" {
		return cmdDrillDebrief(ctx, e, args[1:])
	}
	fs := newFlags(e, "drill", drillArgs)
	headless := fs.Bool("headless", false, "run without a terminal at full speed, with the team's actions from --answers")
	answers := fs.String("answers", "", "the team's answers, subject and steps, each at a scenario time (YAML or JSON; docs/drills.md)")
	out := fs.String("out", "", "write the workspace and the debrief under `DIR` (default: a new folder under $XDG_STATE_HOME/cordon/drills)")
	speed := fs.String("speed", "", "scenario seconds per second, 1 to 600, or max (default: the script's)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: drill needs one scenario: a sample incident folder or a drill.yaml", errUsage)
	}
	s, err := drill.Load(pos[0])
	if err != nil {
		return err
	}
	switch *speed {
	case "", "max":
	default:
		v, err := strconv.ParseFloat(*speed, 64)
		if err != nil || v < 1 || v > drill.MaxSpeed {
			return fmt.Errorf("%w: --speed %q: want 1 to %d, or max", errUsage, *speed, drill.MaxSpeed)
		}
		s.Speed = v
	}
	if *out == "" {
		*out = filepath.Join(stateHome(), "cordon", "drills", s.Scenario+"-"+nowStamp())
	}
	if !*headless {
		return fmt.Errorf("%w: the drill console is not available yet: run it with --headless --answers FILE", errUsage)
	}
	if *answers == "" {
		return fmt.Errorf("%w: a headless drill needs --answers FILE", errUsage)
	}
	a, err := drill.LoadAnswers(*answers)
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	deb, err := drill.RunHeadless(ctx, s, a, *out)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "drill %s: %d of %d right (%d wrong, %d unanswered, %d to judge)\n",
		s.Scenario, deb.Score.Right, deb.Score.Total, deb.Score.Wrong, deb.Score.Unanswered, deb.Score.ToJudge)
	fmt.Fprintf(e.stdout, "debrief: %s and debrief.json\n", filepath.Join(*out, "debrief.md"))
	return nil
}

func cmdDrillDebrief(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "drill debrief", "DIR [--json]")
	asJSON := fs.Bool("json", false, "the debrief as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: drill debrief needs the drill's workspace folder", errUsage)
	}
	deb, err := drill.DebriefDir(ctx, pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(deb)
	}
	return deb.WriteMarkdown(e.stdout)
}

func nowStamp() string { return time.Now().UTC().Format("20060102-150405") }
