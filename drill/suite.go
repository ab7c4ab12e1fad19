package drill

import (
	"context"

	"github.com/cordon-ir/cordon/eval"
	"github.com/cordon-ir/cordon/incident"
)

// BuiltinSuite is how a script names cordon's built-in suite.
const BuiltinSuite = "builtin"

// LoadSuite reads the suite the script declares; nil when it declares
// none.
func (s *Script) LoadSuite() (*eval.Suite, error) {
	switch s.Suite {
	case "":
		return nil, nil
	case BuiltinSuite:
		return eval.Builtin()
	}
	return eval.Load(s.Path(s.Suite))
}

// controls scores the declared suite on the drill's case: the sandbox's
// controls, beside the team's score. "Stopped" is the case's Assessment,
// for the kill time the team recorded.
func (d *Debrief) controls(ctx context.Context, ws *incident.Workspace, s *Script) error {
	suite, err := s.LoadSuite()
	if err != nil || suite == nil {
		return err
	}
	sc, err := eval.Score(ctx, ws, suite)
	if err != nil {
		return err
	}
	d.Controls = sc
	return nil
}

// writeControls renders the controls' score beside the team's: the
// counts, the score per layer and the gaps.
func (d *Debrief) writeControls(p func(format string, a ...any)) {
	sc := d.Controls
	if sc == nil {
		return
	}
	tried := 0
	for _, t := range sc.Tests {
		if t.Tried {
			tried++
		}
	}
	fired, missed, unknown := 0, 0, 0
	for _, l := range sc.Layers {
		fired, missed, unknown = fired+l.Fired, missed+l.Missed, unknown+l.CouldNotTell
	}
	crossed := "no boundary crossing"
	if sc.Crossed != "" {
		crossed = "the boundary crossed up to " + string(sc.Crossed)
	}
	p("**Controls (suite %s): %d fired, %d missed, %d could not tell** over %d of %d tests tried; %s.\n\n",
		md(sc.Suite), fired, missed, unknown, tried, len(sc.Tests), crossed)
	p("| layer | fired | missed | could not tell |\n|---|---|---|---|\n")
	for _, l := range sc.Layers {
		if l.Fired+l.Missed+l.CouldNotTell > 0 {
			p("| %s | %d | %d | %d |\n", md(l.Layer), l.Fired, l.Missed, l.CouldNotTell)
		}
	}
	if len(sc.Gaps) > 0 {
		p("\nWhat the controls missed or could not tell:\n\n")
		for _, g := range sc.Gaps {
			p("- %s\n", md(g))
		}
	}
	p("\n")
}
