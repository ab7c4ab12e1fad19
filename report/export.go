package report

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

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
	evidence.Event
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

// Timesketch writes every event matching query (empty: all) to w as
// Timesketch JSONL (terminal-safe: evidence.PrintableJSON), oldest first, paging through the store so that no more
// than a page of events is held at once. It returns the lines written.
func Timesketch(ctx context.Context, st evidence.Store, query string, w io.Writer) (int, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	// The flattened fields are the evidence as written, escapes and all:
	// encoded as --json encodes them, so that a viewer never runs them.
	enc := json.NewEncoder(evidence.PrintableJSONWriter(bw))
	n := 0
	err := evidence.StoreSource{Store: st}.Each(ctx, query, func(ev evidence.Event) error {
		if err := enc.Encode(NewTimesketchLine(ev)); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("export: %w", err)
	}
	return n, bw.Flush()
}
