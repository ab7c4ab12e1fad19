package steps

import (
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/playbook"
	"github.com/cordon-ir/cordon/tui/common"
)

// Kinds of line in a step's detail; all but kText can be selected.
const (
	kText = iota
	kCheck
	kItem
	kQuery
	kAction
)

// maxVariants bounds the lines one saved query fans out to (one per
// combination of the case's agents, sessions, credentials…).
const maxVariants = 8

// line is one rendered line of the detail and what enter does on it.
type line struct {
	text    string // safe and styled, at most the detail's width
	kind    int
	item    int      // kItem: the checklist index
	query   string   // kQuery: the expanded query ("" when a variable is missing)
	missing string   // kQuery: why there is no query
	events  []string // kCheck: the evidence ids
	action  string   // kAction: the action's name
}

// Glyph is a step status as the list shows it: brackets that read without
// colour.
func Glyph(s incident.StepStatus) string {
	switch s {
	case incident.StepStarted:
		return "[>]"
	case incident.StepDone:
		return "[x]"
	case incident.StepSkipped:
		return "[-]"
	}
	return "[ ]"
}

// CheckLabel is a check's answer in a few words: verified, NOT VERIFIED (N),
// no evidence, not run; for a kill-switch layer, the Assessment's: stopped,
// stopped late (live after the kill until it stopped), LIVE, cannot tell.
func CheckLabel(c *incident.CheckResult) string {
	if c == nil {
		return "not run"
	}
	if l := c.Layer; l != nil {
		// a kill-switch layer says the case's verdict in its words
		switch {
		case l.State == capability.Live:
			return "LIVE"
		case l.State == capability.CannotTell:
			return "cannot tell"
		case l.LiveAfterKill:
			return "stopped late"
		}
		return "stopped"
	}
	switch c.Status {
	case incident.CheckVerified:
		return "verified"
	case incident.CheckNotVerified:
		n := fmt.Sprint(c.Matched)
		if c.Capped {
			n += "+"
		}
		return "NOT VERIFIED (" + n + ")"
	case incident.CheckNoEvidence:
		return "no evidence"
	}
	return "not run"
}

func (m Model) checkStyle(c *incident.CheckResult) lipgloss.Style {
	st := m.com.Styles
	if c == nil {
		return st.Dim
	}
	switch c.Status {
	case incident.CheckVerified:
		return st.Allow
	case incident.CheckNotVerified:
		return st.Deny
	case incident.CheckNoEvidence:
		return st.Warn
	}
	return st.Dim
}

func (m Model) statusStyle(s incident.StepStatus) lipgloss.Style {
	st := m.com.Styles
	switch s {
	case incident.StepDone:
		return st.Allow
	case incident.StepStarted:
		return st.Warn
	case incident.StepSkipped:
		return st.Dim
	}
	return st.Row
}

// expand fills a text template with the case's variables; unknown ones
// stay as {{name}} for the responder to see.
func (m Model) expand(s string) string {
	out, _ := playbook.ExpandText(s, m.vars)
	return out
}

// wrapText wraps safe text to w cells.
func wrapText(s string, w int) []string {
	s = ansi.Wordwrap(printableLines(strings.TrimSpace(s)), max(w, 8), " -")
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, common.Fit(l, w))
	}
	return out
}

// document renders step r for a detail w cells wide.
func (m Model) document(r playbook.StepRef, ss incident.StepState, w int) []line {
	st := m.com.Styles
	s := r.Step
	var out []line
	text := func(t string) { out = append(out, line{text: t}) }
	section := func(t string) {
		if len(out) > 0 {
			text("")
		}
		text(st.Section.Render(common.Fit(t, w)))
	}
	for _, l := range wrapText(m.expand(s.Title), w) {
		text(st.Strong.Render(l))
	}
	meta := s.ID + " · " + r.Phase.Title
	if s.Layer != "" {
		meta += " · kill-switch layer: " + s.Layer.Title()
	}
	text(st.Dim.Render(common.Fit(meta, w)))
	status := "status: open"
	if ss.Status != incident.StepOpen {
		status = fmt.Sprintf("status: %s by %s, %s", ss.Status, ss.By.Name, ss.At.UTC().Format("2006-01-02 15:04:05Z"))
		if ss.Text != "" {
			status += " — " + ss.Text
		}
	}
	for _, l := range wrapText(status, w) {
		text(m.statusStyle(ss.Status).Render(l))
	}
	if s.Sets != "" {
		v := "not yet (d asks for it)"
		if t, ok := m.state.Times[s.Sets]; ok {
			v = t.UTC().Format("2006-01-02 15:04:05Z")
		}
		text(st.Label.Render(common.Fit("done records "+s.Sets+": "+v, w)))
	}
	if p := m.plan; p != nil && m.planStep == s.ID {
		section(fmt.Sprintf("RUN %s? %d command(s), no shell, %s timeout each:", p.Title, len(p.Commands), p.Timeout))
		for _, argv := range p.Commands {
			text(st.Deny.Render(common.Fit("  $ "+incident.CommandLine(argv), w)))
		}
		for _, v := range p.Values {
			text(st.Dim.Render(common.Fit("  {{"+v.Var+"}} "+v.Value+": "+v.From, w)))
		}
		how := "  type " + p.Confirm + " below to run; the journal keeps the output"
		if m.dryRun {
			how = "  drill: a dry run, nothing runs; type " + p.Confirm + " below to record it in the journal"
		}
		text(st.Dim.Render(common.Fit(how, w)))
	}
	if ss.Notes > 0 {
		notes := fmt.Sprintf("%d notes", ss.Notes)
		if ss.Notes == 1 {
			notes = "1 note"
		}
		text(st.Label.Render(common.Fit(notes+" (Journal pane)", w)))
	}

	if c := s.Check; c != nil {
		expect := "wants no matching event"
		if c.Expect == playbook.ExpectSome {
			expect = "wants matching events"
		}
		if c.After != "" {
			what := map[string]string{playbook.VarSince: "the incident start", playbook.VarContainedAt: "containment"}[c.After]
			if what == "" {
				what = c.After
			}
			if t, ok := m.vars.Time(c.After); ok {
				expect += " after " + what + " (" + t.UTC().Format("15:04:05Z") + ")"
			} else {
				expect += " after " + what + " (not recorded yet)"
			}
		}
		section("CHECK · " + expect)
		for _, l := range wrapText(m.expand(c.Title), w-2) {
			text("  " + l)
		}
		res := ss.Check
		label := CheckLabel(res)
		hint := "  c runs it"
		if res != nil && len(res.Events) > 0 {
			hint = fmt.Sprintf("  enter shows the %d events", len(res.Events))
			if len(res.Events) < res.Matched {
				hint = fmt.Sprintf("  enter shows %d of them", len(res.Events))
			}
		}
		l := line{kind: kCheck, text: m.checkStyle(res).Render(label) + st.Dim.Render(common.Fit(hint, w-len(label)-2))}
		if res != nil {
			l.events = res.Events
		}
		out = append(out, l)
		if res != nil && res.Detail != "" {
			for _, dl := range wrapText(res.Detail+" · checked "+res.Checked.UTC().Format("15:04:05Z"), w-2) {
				text("  " + st.Dim.Render(dl))
			}
		}
		if res != nil && len(res.Events) > 0 {
			for _, dl := range wrapText("evidence: "+strings.Join(res.Events, " "), w-2) {
				text("  " + st.Dim.Render(dl))
			}
		}
	}

	if len(s.Checklist) > 0 {
		n := 0
		for i := range s.Checklist {
			if ss.Checked[i] {
				n++
			}
		}
		section(fmt.Sprintf("CHECKLIST %d/%d · enter opens an item, space ticks it", n, len(s.Checklist)))
		for i, item := range s.Checklist {
			box := "[ ]"
			if ss.Checked[i] {
				box = "[x]"
			}
			out = append(out, line{kind: kItem, item: i, text: common.Fit(box+" "+m.expand(item), w-2)})
			if m.openItem == i+1 {
				out = append(out, m.itemLines(ss, i, m.expand(item), w)...)
			}
		}
	}

	if len(s.Queries) > 0 {
		section("SAVED QUERIES · enter runs one in the timeline")
		for _, q := range s.Queries {
			out = append(out, m.queryLines(q, w)...)
		}
	}

	if len(s.Actions) > 0 {
		section("ACTIONS · enter shows the commands and asks first")
		for _, a := range s.Actions {
			if m.actions.known && !m.actions.names[a] {
				// said here, before enter: the responder learns how to
				// configure it, not only that it failed
				out = append(out, line{kind: kAction, action: a, text: common.Fit("▶ "+a+"   NOT CONFIGURED", w-2)})
				for _, l := range wrapText("add a template named "+a+" under actions: in "+m.actions.file+" (docs/playbooks.md: configuring actions), then reopen the console", w-4) {
					text("    " + l)
				}
				continue
			}
			out = append(out, line{kind: kAction, action: a, text: common.Fit("▶ "+a+"   (or: cordon action "+s.ID+" "+a+")", w-2)})
		}
	} else if s.Layer != "" {
		section("ACTIONS · none configured")
		for _, l := range wrapText("this kill-switch layer has no action to run: add actions: [NAME] to the step in the playbook and a command template NAME under actions: in cordon.yaml (docs/playbooks.md: configuring actions)", w-2) {
			text("  " + l)
		}
	}

	if s.DoneWhen != "" {
		section("DONE WHEN")
		for _, l := range wrapText(m.expand(s.DoneWhen), w-2) {
			text("  " + l)
		}
	}

	if g := strings.TrimSpace(s.Guidance); g != "" {
		section("GUIDANCE")
		for _, l := range Markdown(m.expand(g), w-2, st) {
			text("  " + l)
		}
	}
	return out
}

// queryLines is a saved query: one selectable line per expansion (a query
// naming {{session}} runs once per session of the subject).
func (m Model) queryLines(q playbook.SavedQuery, w int) []line {
	st := m.com.Styles
	title := m.expand(q.Title)
	qs, err := playbook.Expand(q.Query, m.vars)
	if err != nil || len(qs) == 0 {
		missing := "has no value to fill in"
		if err != nil {
			missing = "needs a value: " + err.Error()
		}
		return []line{
			{kind: kQuery, missing: missing, text: common.Fit("⌕ "+title, w-2)},
			{text: "    " + st.Dim.Render(common.Fit(missing, w-4))},
		}
	}
	var out []line
	for i, x := range qs {
		if i == maxVariants {
			out = append(out, line{text: "    " + st.Dim.Render(common.Fit(fmt.Sprintf("… %d more combinations", len(qs)-i), w-4))})
			break
		}
		t := title
		if len(qs) > 1 {
			t += fmt.Sprintf(" (%d/%d)", i+1, len(qs))
		}
		out = append(out, line{kind: kQuery, query: x, text: common.Fit("⌕ "+t, w-2)},
			line{text: "    " + st.Code.Render(common.Fit(x, w-4))})
	}
	return out
}

// itemLines are a checklist item opened under its line: its whole text,
// wrapped, when its line cut it, then who ticked or unticked it last and
// when.
func (m Model) itemLines(ss incident.StepState, i int, text string, w int) []line {
	st := m.com.Styles
	var out []line
	if ansi.StringWidth("[ ] "+printableLines(text)) > w-2 {
		for _, l := range wrapText(text, w-6) {
			out = append(out, line{text: "    " + l})
		}
	}
	said := "not ticked yet · space ticks it"
	if t, ok := ss.Ticks[i]; ok {
		verb := "ticked"
		if !t.Done {
			verb = "unticked"
		}
		said = fmt.Sprintf("%s by %s (%s) at %s · space %s it", verb, t.By.Name, t.By.Via, t.At.UTC().Format("2006-01-02 15:04:05Z"),
			map[bool]string{true: "unticks", false: "ticks"}[t.Done])
	}
	for _, l := range wrapText(said, w-6) {
		out = append(out, line{text: "    " + st.Dim.Render(l)})
	}
	return out
}
