package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// WriteJSON writes the scorecard as one indented JSON document.
func WriteJSON(w io.Writer, sc *Scorecard) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sc)
}

// WriteMarkdown writes the scorecard for a person: the ladder, the layer
// scores, the gaps, then each test tried with its controls, then the
// tests the run did not try.
func WriteMarkdown(w io.Writer, sc *Scorecard) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Containment scorecard: %s\n\n", cell(sc.Suite))
	fmt.Fprintf(&b, "- incident: %s\n", cell(sc.Incident))
	if sc.Run != "" {
		fmt.Fprintf(&b, "- run: %s (only its events)\n", cell(sc.Run))
	}
	fmt.Fprintf(&b, "- subject: %s; verdict: %s\n", cell(orNone(sc.Subject)), cell(sc.Verdict))
	tried := 0
	for _, t := range sc.Tests {
		if t.Tried {
			tried++
		}
	}
	fmt.Fprintf(&b, "- tests tried: %d of %d; highest rung tried: %s; boundary crossed up to: %s\n", tried, len(sc.Tests), orDash(string(sc.Reached)), orDash(string(sc.Crossed)))
	if a := sc.FirstAnswer; a != nil {
		fmt.Fprintf(&b, "- first control to answer: %s on %s (rung %s) at %s\n", a.Control, a.Test, a.Rung, stamp(a.At))
	}
	b.WriteString("\n## Score per layer\n\n| layer | fired | missed | could not tell |\n|---|---|---|---|\n")
	for _, l := range sc.Layers {
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", l.Layer, l.Fired, l.Missed, l.CouldNotTell)
	}
	b.WriteString("\n## Gaps\n\n")
	if len(sc.Gaps) == 0 {
		b.WriteString("None: every control of every test tried answered.\n")
	}
	for _, g := range sc.Gaps {
		fmt.Fprintf(&b, "- %s\n", cell(g))
	}
	b.WriteString("\n## Tests tried\n")
	var untried []string
	for _, t := range sc.Tests {
		if !t.Tried {
			untried = append(untried, t.ID)
			continue
		}
		cross := "no boundary crossing"
		if t.Crossed {
			cross = "crossed the boundary"
		}
		fmt.Fprintf(&b, "\n### %s (%s)\n\n%s — by %s from %s, %d events; %s.\n\n", t.ID, t.Rung, cell(t.Behaviour),
			cell(strings.Join(t.Agents, ", ")), stamp(t.First), t.Events, cross)
		b.WriteString("| control | outcome | after | why |\n|---|---|---|---|\n")
		for _, c := range t.Controls {
			after := "—"
			if c.After != nil {
				after = dur(time.Duration(*c.After))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.Control, c.Outcome, after, cell(c.Why))
		}
	}
	if len(untried) > 0 {
		fmt.Fprintf(&b, "\n## Not tried by this run\n\n%s\n", strings.Join(untried, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell makes evidence text safe in one markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(evidence.Printable(s), "|", `\|`)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") }
