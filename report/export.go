package report

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"io"
	"slices"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
)

// annotations gathers, by event id, what the case says of each event.
func annotations(ctx context.Context, ws *incident.Workspace) (map[string]Annotation, error) {
	out := map[string]Annotation{}
	tag := func(id, t string) {
		a := out[id]
		if !slices.Contains(a.Tag, t) {
			a.Tag = append(a.Tag, t)
		}
		out[id] = a
	}
	marks, err := ws.Marks()
	if err != nil {
		return nil, err
	}
	for _, m := range marks.List() {
		tag(m.ID, "cordon:starred")
		a := out[m.ID]
		a.Starred = true
		out[m.ID] = a
	}
	entries, err := ws.JournalEntries()
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Type != journal.EntryNote || e.Event == "" {
			continue
		}
		tag(e.Event, "cordon:noted")
		a := out[e.Event]
		a.Comments = append(a.Comments, fmt.Sprintf("%s at %s: %s", e.Actor.Name, e.Time.UTC().Format(timesketchTime), e.Text))
		out[e.Event] = a
	}
	findings, err := ws.CachedFindings(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range findings {
		for _, id := range f.Events {
			tag(id, "finding:"+f.Detector)
			tag(id, "severity:"+f.Severity)
			a := out[id]
			a.Findings = append(a.Findings, f.ID)
			out[id] = a
		}
	}
	caps, err := ws.Capabilities(ctx)
	if err != nil {
		return nil, err
	}
	for _, agent := range caps.Agents() {
		for _, c := range caps.For(agent) {
			label := fmt.Sprintf("%s %s (%s, %s)", c.Kind, c.Value, c.Origin, c.Agent)
			ids := slices.Clone(c.Acquired)
			for _, u := range c.Uses {
				ids = append(ids, u.ID)
			}
			for _, id := range ids {
				tag(id, "capability:"+string(c.Kind))
				if c.Origin == capability.Acquired {
					tag(id, "capability:acquired")
				}
				a := out[id]
				if !slices.Contains(a.Capabilities, label) {
					a.Capabilities = append(a.Capabilities, label)
				}
				out[id] = a
			}
		}
	}
	return out, nil
}

// TimesketchLine is one event as Timesketch imports it from JSONL: the
// three fields it requires (message, datetime, timestamp_desc), the
// timestamp in microseconds, and the event's own fields flattened beside
// them, without the raw record. The event's own message is shadowed by
// Timesketch's; it is part of it.
type TimesketchLine struct {
	Message       string `json:"message"`
	Datetime      string `json:"datetime"`
	Timestamp     int64  `json:"timestamp"`
	TimestampDesc string `json:"timestamp_desc"`
	Annotation
	evidence.Event
}

// Annotation is the responders' work on one event, as a sketch carries
// it: Timesketch's own tag field, and attributes beside it. Stars and
// comments live in Timesketch's database, which an import cannot write, so
// a mark is the tag "cordon:starred" and notes are cordon_comments.
type Annotation struct {
	Tag          []string `json:"tag,omitempty"`
	Starred      bool     `json:"cordon_starred,omitempty"`
	Comments     []string `json:"cordon_comments,omitempty"`     // "who at time: text"
	Findings     []string `json:"cordon_findings,omitempty"`     // finding ids
	Capabilities []string `json:"cordon_capabilities,omitempty"` // "kind value (origin, agent)"
	// ExportedBy says what wrote the line: cordon's version and the
	// command line, as the report's front page says it.
	ExportedBy string `json:"cordon_exported_by,omitempty"`
}

// timesketchTime is RFC 3339 in UTC with microseconds, as Timesketch
// stores them.
const timesketchTime = "2006-01-02T15:04:05.000000Z07:00"

// NewTimesketchLine converts one event.
func NewTimesketchLine(ev evidence.Event) TimesketchLine {
	t := ev.Time.UTC()
	ev.Raw = ""
	ev.Time = t
	return TimesketchLine{
		Message:       timesketchMessage(ev),
		Datetime:      t.Format(timesketchTime),
		Timestamp:     t.UnixMicro(),
		TimestampDesc: TimestampDesc(ev.Kind),
		Event:         ev,
	}
}

// timesketchMessage is the readable one-liner: agent, kind, target and the
// event's message, made printable.
func timesketchMessage(ev evidence.Event) string {
	parts := []string{agentOrNone(ev.Agent), ev.Kind}
	if ev.Decision != "" {
		parts = append(parts, ev.Decision)
	}
	if t := ev.Target(); t != "" {
		parts = append(parts, t)
	}
	s := strings.Join(parts, " ")
	if ev.Message != "" {
		s += ": " + ev.Message
	}
	return evidence.Printable(s)
}

func agentOrNone(a string) string {
	if a == "" {
		return "(no agent)"
	}
	return a
}

// TimestampDesc says what an event's time records, per kind, in
// Timesketch's words ("Request Sent", "Process Executed").
func TimestampDesc(kind string) string {
	switch kind {
	case evidence.KindSessionStart:
		return "Session Started"
	case evidence.KindSessionEnd:
		return "Session Ended"
	case evidence.KindPrompt:
		return "Prompt Sent"
	case evidence.KindToolCall:
		return "Tool Called"
	case evidence.KindToolResult:
		return "Tool Returned"
	case evidence.KindPolicyDecision:
		return "Policy Decided"
	case evidence.KindNetRequest:
		return "Request Sent"
	case evidence.KindNetConnect:
		return "Connection Opened"
	case evidence.KindDNSQuery:
		return "DNS Query Sent"
	case evidence.KindProcExec:
		return "Process Executed"
	case evidence.KindProcExit:
		return "Process Exited"
	case evidence.KindFileOpen:
		return "File Opened"
	case evidence.KindFileWrite:
		return "File Written"
	case evidence.KindCredAccess:
		return "Credential Accessed"
	case evidence.KindHumanIntervention:
		return "Human Intervention"
	case evidence.KindSummary:
		return "Summary Written"
	case evidence.KindAlert:
		return "Alert Raised"
	}
	return "Event Recorded"
}

// Timesketch writes every event matching query (evidence.All: all) to w as
// Timesketch JSONL (terminal-safe: evidence.PrintableJSON), oldest first,
// paging through the store so that no more than a page of events is held
// at once, each with the team's marks and notes, the findings whose
// evidence it is and the capabilities it shows. It returns the lines
// written.
func Timesketch(ctx context.Context, ws *incident.Workspace, query evidence.Query, w io.Writer, opts ...Option) (int, Redaction, error) {
	annot, err := annotations(ctx, ws)
	if err != nil {
		return 0, Redaction{}, err
	}
	out := newOutput(ws, optionsOf(opts))
	bw := bufio.NewWriterSize(w, 64<<10)
	// The flattened fields are the evidence as written, escapes and all:
	// encoded as --json encodes them, so that a viewer never runs them.
	enc := json.NewEncoder(evidence.PrintableJSONWriter(bw))
	by := ""
	if b := optionsOf(opts).built; b.Cordon != "" {
		by = "cordon " + b.Cordon + ": " + incident.CommandLine(b.Command)
	}
	n := 0
	err = ws.Each(ctx, query, func(ev evidence.Event) error {
		line := NewTimesketchLine(ev)
		line.Annotation = annot[ev.ID]
		line.ExportedBy = by
		out.redact(&line)
		if err := enc.Encode(line); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, out.done(), fmt.Errorf("export: %w", err)
	}
	return n, out.done(), bw.Flush()
}
