package drill

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// maxJournalLines bounds the journal excerpt of a debrief.
const maxJournalLines = 40

// WriteMarkdown renders the debrief for the room. Answers and journal text
// were typed by people and quote evidence: they are made printable.
func (d *Debrief) WriteMarkdown(w io.Writer) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	title := d.Scenario
	if d.Title != "" {
		title = d.Title
	}
	p("# Debrief: %s\n\n", md(title))
	p("Scenario time %s to %s; the incident began at %s.\n\n", clock(d.Start), clock(d.End), clock(d.Onset))
	p("**Score: %d of %d right**", d.Score.Right, d.Score.Total)
	if d.Score.ToJudge > 0 {
		p(", %d for the facilitator to judge", d.Score.ToJudge)
	}
	p(" (%d wrong, %d unanswered).\n\n", d.Score.Wrong, d.Score.Unanswered)
	d.writeControls(p)

	p("## How fast\n\n| milestone | scenario time | after onset | how |\n|---|---|---|---|\n")
	for _, m := range []struct {
		name string
		m    *Milestone
	}{{"detected", d.Detect}, {"attributed", d.Attribute}, {"contained", d.Contain}} {
		if m.m == nil {
			p("| %s | — | — | not reached |\n", m.name)
			continue
		}
		p("| %s | %s | %s | %s |\n", m.name, clock(m.m.At), since(m.m.After), md(m.m.How))
	}

	if c := d.Called; c != nil {
		p("\nThe team called the agent stopped at %s (kill time %s); the case then: %s.", clock(c.At), clock(c.Kill), md(string(c.StateThen)))
		if len(c.OpenThen) > 0 {
			p(" Still not stopped when they called it:\n\n")
			for _, o := range c.OpenThen {
				p("- %s\n", md(o))
			}
		} else {
			p("\n")
		}
		p("\nOn all the evidence released: %s.\n", md(c.Headline))
	}

	p("\n## Questions\n\n")
	for i, q := range d.Questions {
		p("%d. **%s** — %s\n", i+1, md(q.Text), strings.ToUpper(q.Verdict))
		if q.Given != "" {
			p("   - answered %q by %s at %s\n", md(q.Given), md(q.By), clock(q.At))
		}
		if len(q.Expected) > 0 {
			p("   - the evidence: %s", md(strings.Join(q.Expected, ", ")))
			if len(q.Evidence) > 0 {
				p(" (events %s)", md(strings.Join(q.Evidence, " ")))
			}
			p("\n")
		}
		if q.Why != "" && q.Verdict == Wrong {
			p("   - %s\n", md(q.Why))
		}
	}

	p("\n## Findings\n\n")
	if len(d.Findings) == 0 {
		p("- none expected\n")
	}
	for _, f := range d.Findings {
		state := "missed by the detectors on the released evidence"
		if f.Surfaced {
			state = "surfaced, from " + clock(f.Start)
		}
		p("- %s on %s: %s\n", md(f.Detector), md(f.Agent), state)
	}

	p("\n## Playbook\n\n")
	p("- done: %s\n", list(d.Steps.Done))
	p("- skipped: %s\n", list(d.Steps.Skipped))
	p("- expected but not reached: %s\n", list(d.Steps.Missed))

	p("\n## Journal\n\n```\n")
	lines := d.Journal
	if len(lines) > maxJournalLines {
		p("(first %d of %d entries)\n", maxJournalLines, len(lines))
		lines = lines[:maxJournalLines]
	}
	for _, l := range lines {
		p("%4d %s %-10s %-18s %s\n", l.Seq, clock(l.Time), evidence.Printable(l.Actor), l.Type, evidence.Printable(l.Text))
	}
	_, err := fmt.Fprint(w, "```\n")
	return err
}

// md makes text printable and keeps it from opening Markdown structure.
func md(s string) string {
	s = evidence.Printable(s)
	return strings.NewReplacer("|", `\|`, "`", "'", "<", "&lt;", ">", "&gt;").Replace(s)
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return md(strings.Join(xs, ", "))
}

func clock(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("15:04:05")
}

func since(d time.Duration) string {
	if d < 0 {
		return "-" + since(-d)
	}
	return d.Round(time.Second).String()
}
