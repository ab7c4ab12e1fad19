package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/tui"
	"github.com/spf13/cobra"
)

const drillArgs = "SCENARIO [--out DIR] [--speed N] [--role facilitator|participant] | SCENARIO --headless --answers FILE [--out DIR] | debrief DIR [--json]"

// cmdDrill runs a tabletop drill over a sample incident, or debriefs one.
func cmdDrill(e *env, c *cobra.Command) {
	fs := c.Flags()
	headless := fs.Bool("headless", false, "run without a terminal at full speed, with the team's actions from --answers")
	answers := fs.String("answers", "", "the team's answers, subject and steps, each at a scenario time (YAML or JSON; docs/drills.md)")
	out := fs.String("out", "", "write the workspace and the debrief under `DIR` (default: a new folder under $XDG_STATE_HOME/cordon/drills)")
	speed := fs.String("speed", "", "scenario seconds per second, 1 to 600, or max (default: the script's)")
	role := fs.String("role", "facilitator", "in the console: `ROLE` facilitator (runs the clock) or participant (answers only)")
	debug := fs.String("debug", "", "console: write a debug log to `FILE`")
	asJSON := jsonFlag(fs, "with --headless: the score as JSON")
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		if len(pos) != 1 {
			fs.Usage()
			return fmt.Errorf("%w: drill needs one scenario: a sample incident folder or a drill.yaml", errUsage)
		}
		s, err := drill.Load(pos[0])
		if err != nil {
			return err
		}
		switch *speed {
		case "":
		case "max":
			if !*headless {
				s.Speed = drill.MaxSpeed
			}
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
			if *answers != "" {
				return fmt.Errorf("%w: --answers is for --headless: in the console the team types its answers", errUsage)
			}
			if *role != "facilitator" && *role != "participant" {
				return fmt.Errorf("%w: --role %q: want facilitator or participant", errUsage, *role)
			}
			return drillConsole(ctx, e, s, *out, *role == "facilitator", *debug)
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
		if *asJSON {
			return jsonEncoder(e.stdout).Encode(map[string]any{"scenario": s.Scenario, "score": deb.Score, "debrief": filepath.Join(*out, "debrief.md")})
		}
		fmt.Fprintf(e.stdout, "drill %s: %d of %d right (%d wrong, %d unanswered, %d to judge)\n",
			s.Scenario, deb.Score.Right, deb.Score.Total, deb.Score.Wrong, deb.Score.Unanswered, deb.Score.ToJudge)
		fmt.Fprintf(e.stdout, "debrief: %s and debrief.json\n", filepath.Join(*out, "debrief.md"))
		return nil
	}
}

func cmdDrillDebrief(e *env, c *cobra.Command) {
	fs := c.Flags()
	asJSON := fs.Bool("json", false, "the debrief as JSON")
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		if len(pos) != 1 {
			fs.Usage()
			return fmt.Errorf("%w: drill debrief needs the drill's workspace folder", errUsage)
		}
		deb, err := drill.DebriefDir(ctx, pos[0])
		if err != nil {
			return err
		}
		if *asJSON {
			enc := jsonEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(deb)
		}
		return deb.WriteMarkdown(e.stdout)
	}
}

// drillConsole runs the drill in the console over a new workspace in
// out/workspace; the debrief goes to out.
func drillConsole(ctx context.Context, e *env, s *drill.Script, out string, facilitator bool, debug string) error {
	if !isTerminal(e.stdout) {
		return fmt.Errorf("%w: the drill console needs a terminal; without one, run it with --headless --answers FILE", errUsage)
	}
	log, closeLog, err := debugLog(debug)
	if err != nil {
		return err
	}
	defer closeLog()
	wsDir := filepath.Join(out, "workspace")
	d, err := drill.Start(ctx, s, wsDir, nil)
	if errors.Is(err, drill.ErrDrillExists) {
		// the same --out again: carry on where the console was quit
		if st, serr := drill.ReadState(wsDir); serr == nil && st.Scenario == s.Scenario {
			d, err = drill.Resume(ctx, wsDir, nil)
		}
	}
	if err != nil {
		return err
	}
	defer d.Close()
	fmt.Fprintf(e.stderr, "cordon: drill %s in %s, at %s\n", s.Scenario, out, d.Clock.Now().UTC().Format("15:04:05"))
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h, err := d.WS.Handle(incident.HandleOptions{Name: "drill " + s.Scenario})
	if err != nil {
		return err
	}
	m := tui.New(h, tui.Options{Renderer: renderer(e.stdout), Dark: darkBackground(), Logger: log, Ctx: cctx,
		Drill: d, DrillFacilitator: facilitator, DrillDebrief: out, Version: cordonVersion()})
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(cctx),
		tea.WithOutput(e.stdout))
	final, runErr := p.Run()
	cancel()
	ws := filepath.Join(out, "workspace")
	fmt.Fprintf(e.stdout, "drill %s stopped at %s (scenario time)\n", s.Scenario, d.Clock.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(e.stdout, "workspace: %s\n", ws)
	if _, err := os.Stat(filepath.Join(out, "debrief.md")); err == nil {
		fmt.Fprintf(e.stdout, "debrief: %s and debrief.json\n", filepath.Join(out, "debrief.md"))
	}
	fmt.Fprintf(e.stdout, "debrief it (again) with: cordon drill debrief %s\n", ws)
	if runErr != nil && !errors.Is(runErr, tea.ErrProgramKilled) {
		return fmt.Errorf("console: %w", runErr)
	}
	if fm, ok := final.(tui.Model); ok && fm.Err() != nil {
		return fmt.Errorf("console: %w", fm.Err())
	}
	return nil
}

func nowStamp() string { return time.Now().UTC().Format("20060102-150405") }
