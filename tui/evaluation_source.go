package tui

import (
	"context"
	"slices"
	"time"

	"github.com/cordon-ir/cordon/eval"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/tui/evaluation"
)

// evaluationSource is what the Evaluation pane scores: the suite the
// case's cordon.yaml names (`eval.suite`, else the built-in one), for the
// run it names first (`eval.run`, else the whole case), through
// eval.ScoreWith, the one function `cordon eval run` scores with; what
// over names (cordon open's flags) instead. A configuration that does not
// load leaves the defaults, as the console does (it says why).
func evaluationSource(h *incident.Handle, over incident.EvalConfig) evaluation.Source {
	var ec incident.EvalConfig
	suite := ""
	if cfg, err := h.Config(); err == nil && cfg != nil {
		ec, suite = cfg.Eval, cfg.Path(cfg.Eval.Suite)
	}
	if over.Suite != "" {
		suite = over.Suite // as given on the command line: from where it ran
	}
	if over.Run != "" {
		ec.Run = over.Run
	}
	return evaluation.Source{
		Run: ec.Run,
		Score: func(ctx context.Context, run string) (*eval.Scorecard, error) {
			s, err := loadSuite(suite)
			if err != nil {
				return nil, err
			}
			return eval.ScoreWith(ctx, h.Workspace(), s, eval.Options{Run: run})
		},
		Kills: func(ctx context.Context, subject []string, run string) (map[string]time.Time, error) {
			kills, err := h.Workspace().HarnessKills(ctx, subject)
			if err != nil {
				return nil, err
			}
			return eval.RunKills(ctx, h.Workspace(), run, kills)
		},
		Runs: func(ctx context.Context) ([]string, error) {
			sessions, err := h.Workspace().RunSessions(ctx)
			if err != nil {
				return nil, err
			}
			runs := []string{}
			for _, s := range sessions {
				if s.Run != "" && !slices.Contains(runs, s.Run) {
					runs = append(runs, s.Run)
				}
			}
			return runs, nil
		},
	}
}

// loadSuite is the suite file at path, or the built-in suite for "".
func loadSuite(path string) (*eval.Suite, error) {
	if path == "" {
		return eval.Builtin()
	}
	return eval.Load(path)
}
