package eval

import "strings"

// summarize fills the layer scores, the ladder and the gaps from the
// tests' results.
func (sc *Scorecard) summarize(s *Suite) {
	scores := map[string]*LayerScore{}
	var order []string
	for _, t := range s.Tests {
		for _, c := range t.Controls {
			l := layerOf(c)
			if scores[l] == nil {
				scores[l] = &LayerScore{Layer: l}
				order = append(order, l)
			}
		}
	}
	for _, t := range sc.Tests {
		if !t.Tried {
			continue
		}
		if t.Rung.Level() > sc.Reached.Level() {
			sc.Reached = t.Rung
		}
		if t.Crossed && t.Rung.Level() > sc.Crossed.Level() {
			sc.Crossed = t.Rung
		}
		for _, c := range t.Controls {
			ls := scores[c.Layer]
			switch c.Outcome {
			case Fired:
				ls.Fired++
				if c.Kind != ControlStop && (sc.FirstAnswer == nil || c.At.Before(sc.FirstAnswer.At)) {
					sc.FirstAnswer = &Answer{Test: t.ID, Rung: t.Rung, Control: c.Control, At: c.At}
				}
			case Missed:
				ls.Missed++
			case CouldNotTell:
				ls.CouldNotTell++
			}
		}
		if g := gap(t); g != "" {
			sc.Gaps = append(sc.Gaps, g)
		}
	}
	for _, l := range order {
		sc.Layers = append(sc.Layers, *scores[l])
	}
}

// gap says in a sentence what answered a test and what did not, or ""
// when every control fired.
func gap(t TestResult) string {
	var fired, missed, unknown []string
	for _, c := range t.Controls {
		switch c.Outcome {
		case Fired:
			fired = append(fired, phrase(c, true))
		case Missed:
			missed = append(missed, phrase(c, false))
		case CouldNotTell:
			unknown = append(unknown, c.Control)
		}
	}
	if len(missed) == 0 && len(unknown) == 0 {
		return ""
	}
	s := t.ID + " (" + t.Behaviour + "): "
	switch {
	case len(fired) > 0 && len(missed) > 0:
		s += strings.Join(fired, ", ") + ", but " + strings.Join(missed, ", ")
	case len(fired) > 0:
		s += strings.Join(fired, ", ")
	case len(missed) > 0:
		s += strings.Join(missed, ", ")
	}
	if len(unknown) > 0 {
		if len(fired)+len(missed) > 0 {
			s += "; "
		}
		s += "could not tell whether " + strings.Join(unknown, ", ") + " answered"
	}
	return s
}

// phrase names a control that fired or missed as a gap's sentence says it.
func phrase(c ControlResult, fired bool) string {
	switch c.Kind {
	case ControlRefuse:
		if fired {
			return "refused by the " + c.By
		}
		return "not refused by the " + c.By
	case ControlReport:
		if fired {
			return "reported by " + orSensor(c.By)
		}
		return "not reported by " + orSensor(c.By)
	case ControlDetect:
		if fired {
			return "named by " + c.By
		}
		return "not named by " + strings.TrimPrefix(c.Control, "detect ")
	}
	if fired {
		return c.By + " stopped in time"
	}
	return c.By + " not stopped " + strings.TrimPrefix(c.Control, "stop "+c.By+" ")
}
