package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/tui/command"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/sheet"
	"github.com/cordon-ir/cordon/tui/steps"
)

// verbs are the `:` line's commands. They mirror the command line's
// (cordon subject, step, note, check, report, export) so that what a
// responder learned in one works in the other; the rest move the console.
// What they complete is taken now, when the line opens: the closures
// never read the model later.
func (m *Model) verbs() []command.Verb {
	// the counts kept at ingest name every agent, before the Agents pane
	// has loaded its summaries
	var agentNames []string
	for a := range m.counts.Fields["agent"] {
		if a != "" {
			agentNames = append(agentNames, a)
		}
	}
	slices.Sort(agentNames)
	stepIDs, saved := m.steps.StepIDs(), m.savedNames()
	agents := func(int) []string { return agentNames }
	return []command.Verb{
		{Name: "subject", Args: "AGENT...", Help: "name the agents the incident is about", Writes: true, Complete: agents},
		{Name: "step", Args: "start|done|skip STEP_ID [TEXT]", Help: "record a playbook step in the journal", Writes: true,
			Complete: func(n int) []string {
				if n == 0 {
					return []string{"start", "done", "skip"}
				}
				return stepIDs
			}},
		{Name: "note", Args: "TEXT", Help: "a note on the selected event (or the case) in the journal", Writes: true},
		{Name: "check", Args: "[STEP_ID...]", Help: "run the evidence checks and journal them", Writes: true,
			Complete: func(int) []string { return stepIDs }},
		{Name: "report", Args: "md|json|html [FILE]", Help: "write the report into the workspace's exports/ folder", Writes: true,
			Complete: func(n int) []string {
				if n == 0 {
					return []string{"md", "json", "html"}
				}
				return nil
			}},
		{Name: "export", Args: "timesketch|ocsf|stix [QUERY]", Help: "write an export into exports/ (timesketch: the timeline's events)", Writes: true,
			Complete: func(n int) []string {
				if n == 0 {
					return []string{"timesketch", "ocsf", "stix"}
				}
				return nil
			}},
		{Name: "goto", Args: "HH:MM[:SS]|RFC3339|+DURATION", Help: "jump the timeline to a time (+10m: from the clock's origin)"},
		{Name: "since", Args: "DURATION|TIME", Help: "show events since a time (30m: before the last event)"},
		{Name: "filter", Args: "QUERY", Help: "narrow the timeline's filter by a query"},
		{Name: "search", Args: "QUERY|SAVED", Help: "search, or run a saved search of config.yaml",
			Complete: func(int) []string { return saved }},
		{Name: "walk", Args: "call_id|exec_id|credential", Help: "the selected event's call, process or credential through time",
			Complete: func(int) []string { return walkFields }},
		{Name: "time", Args: "abs|start|containment|event", Help: "what times count from; the header says which",
			Complete: func(int) []string { return []string{"abs", "start", "containment", "event"} }},
		{Name: "marks", Help: "list the marks; enter jumps to one"},
		{Name: "files", Help: "the inputs and why any was not ingested"},
		{Name: "help", Help: "list these commands"},
		{Name: "quit", Help: "leave the console"},
	}
}

// savedNames are the saved searches' names, sorted.
func (m *Model) savedNames() []string {
	var out []string
	for n := range m.cfg.Searches {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// runCommand runs one `:` line. A verb that changes the case is refused
// for an observer before anything is read.
func (m Model) runCommand(line string) (Model, tea.Cmd) {
	// a new command answers for itself: the last one's error goes
	m.err = nil
	line = m.command.Expand(line)
	verb, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	rest = strings.TrimSpace(rest)
	args := strings.Fields(rest)
	v, ok := m.command.Verb(verb)
	if !ok {
		m.status = fmt.Sprintf("no command %q: :help lists them (tab completes)", common.Clip(verb, 30))
		return m, nil
	}
	if v.Writes && m.actor.Observer {
		m.status = ":" + v.Name + " refused: " + common.ReadOnlyText()
		return m, nil
	}
	// what the commands' closures use, copied: they never read the model
	cs, ctx, actor := m.cs, m.com.Ctx, m.actor
	switch v.Name {
	case "subject":
		if len(args) == 0 {
			m.status = "usage: :subject AGENT... (tab completes the agents)"
			return m, nil
		}
		return m, m.caseWrite("subject", func() (string, error) {
			e, err := cs.SetSubject(ctx, actor, args)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("journal #%d: subject %s", e.Seq, strings.Join(args, ", ")), nil
		})
	case "step":
		status := map[string]incident.StepStatus{"start": incident.StepStarted, "done": incident.StepDone, "skip": incident.StepSkipped}
		if len(args) < 2 || status[args[0]] == "" {
			m.status = "usage: :step start|done|skip STEP_ID [TEXT]"
			return m, nil
		}
		text := strings.TrimSpace(strings.Join(args[2:], " "))
		return m, m.caseWrite("step", func() (string, error) {
			e, err := cs.SetStep(ctx, actor, args[1], status[args[0]], time.Time{}, text)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("journal #%d: %s %s", e.Seq, args[1], status[args[0]]), nil
		})
	case "note":
		if rest == "" {
			m.status = "usage: :note TEXT"
			return m, nil
		}
		ev := ""
		if e, ok := m.selectedEvent(); ok {
			ev = e.ID
		}
		return m, noteCmd(m.com, m.cs, m.actor, "", ev, rest)
	case "check":
		setters := m.steps.Setters()
		return m, m.caseWrite("check", func() (string, error) {
			res, err := cs.Check(ctx, actor, args...)
			if err != nil {
				return "", err
			}
			return steps.CheckSummary(res, setters), nil
		})
	case "report", "export":
		return m.writeExport(v.Name, args, rest)
	case "goto":
		t, err := m.parseWhen(rest)
		if err != nil {
			m.status = "goto: " + err.Error()
			return m, nil
		}
		m.focus = paneTimeline
		m.status = "at " + t.UTC().Format(time.RFC3339)
		return m, m.timeline.JumpTo(evidence.Event{Time: t})
	case "since":
		t, err := m.parseSince(rest)
		if err != nil {
			m.status = "since: " + err.Error()
			return m, nil
		}
		return m, common.Send(common.FilterMsg{Add: evidence.TimeRange(t, time.Time{})})
	case "filter":
		q, err := evidence.Parse(rest)
		if err != nil {
			m.err = err
			return m, nil
		}
		return m, common.Send(common.FilterMsg{Add: q})
	case "search":
		if s, ok := m.cfg.Searches[rest]; ok {
			rest = s
		}
		return m, common.Send(common.SearchMsg{Query: rest})
	case "walk":
		field := ""
		if len(args) > 0 {
			field = args[0]
		}
		return m.walk(field)
	case "time":
		return m.setTimeBase(rest)
	case "marks":
		m.showMarks()
		return m, nil
	case "files":
		m.showFiles()
		return m, nil
	case "help":
		var rows []sheet.Row
		for _, v := range m.command.Verbs() {
			role := ""
			if v.Writes {
				role = "  (changes the case: not for observers)"
			}
			rows = append(rows, sheet.Row{Text: fmt.Sprintf(":%-8s %-32s %s%s", v.Name, v.Args, v.Help, role)})
		}
		for _, a := range slices.Sorted(mapKeys(m.cfg.Aliases)) {
			rows = append(rows, sheet.Row{Text: fmt.Sprintf(":%-8s = %s  (alias, config.yaml)", a, m.cfg.Aliases[a])})
		}
		m.sheet.Show("COMMANDS  tab completes, ↑ recalls, esc closes", rows, 0)
		return m, nil
	case "quit":
		return m, tea.Quit
	}
	return m, nil
}

func mapKeys(mm map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range mm {
			if !yield(k) {
				return
			}
		}
	}
}

// caseWrite runs a journal write of a verb and reports it on the status line.
func (m Model) caseWrite(what string, f func() (string, error)) tea.Cmd {
	return m.com.Cmd(func() tea.Msg {
		text, err := f()
		if err != nil {
			return common.WrittenMsg{Err: fmt.Errorf(":%s: %w", what, err)}
		}
		return common.WrittenMsg{Text: text}
	})
}

// selectedEvent is the event the responder is on: the open event in the
// event view, else the timeline's selection.
func (m Model) selectedEvent() (evidence.Event, bool) {
	if m.focus == paneDetail && m.detail.Has() {
		return m.detail.Event(), true
	}
	return m.timeline.Selected()
}

// parseWhen reads a time for :goto: a time of day on the incident's first
// day (or the next day, when that is before the incident began), an RFC
// 3339 time, or +/-DURATION from the clock's origin.
func (m Model) parseWhen(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, errors.New("usage: :goto HH:MM[:SS] | RFC3339 | +DURATION")
	}
	if s[0] == '+' || s[0] == '-' {
		d, err := time.ParseDuration(s)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q: want a duration such as +10m or -90s", s)
		}
		return m.clock.Zero().Add(d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"15:04", "15:04:05", "15:04:05.000"} {
		if tod, err := time.Parse(layout, s); err == nil {
			first := m.span.First.UTC()
			if first.IsZero() {
				return time.Time{}, errors.New("no events yet to place a time of day on")
			}
			t := time.Date(first.Year(), first.Month(), first.Day(), tod.Hour(), tod.Minute(), tod.Second(), tod.Nanosecond(), time.UTC)
			if t.Add(time.Minute).Before(first) {
				t = t.AddDate(0, 0, 1)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q: want HH:MM[:SS] (UTC, on the incident's day), an RFC 3339 time or +DURATION", s)
}

// parseSince reads :since: a duration counts back from the last event
// (an incident is often read after the fact, so "now" would show
// nothing), anything else is a time as :goto reads it.
func (m Model) parseSince(s string) (time.Time, error) {
	if d, err := time.ParseDuration(strings.TrimSpace(s)); err == nil && d > 0 {
		if m.span.Last.IsZero() {
			return time.Time{}, errors.New("no events yet")
		}
		return m.span.Last.Add(-d), nil
	}
	return m.parseWhen(s)
}
