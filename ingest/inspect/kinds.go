package inspect

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// toolEvents are the tool_call a ToolEvent records and its tool_result,
// at the call's completion.
func toolEvents(ev evidence.Event, e *inspectEvent, done time.Time) (call, res evidence.Event) {
	call = ev
	call.Kind, call.Tool, call.CallID = evidence.KindToolCall, e.Function, e.ID
	parse.ToolArgs(&call, e.Arguments)
	handoff := ""
	if e.Agent != "" {
		handoff = "(handoff to " + e.Agent + ")"
	}
	call.Message = parse.Message(e.Function, parse.ArgsText(e.Arguments), handoff)
	res = ev
	res.Kind, res.Tool, res.CallID = evidence.KindToolResult, e.Function, e.ID
	if !done.IsZero() {
		res.Time = done
	}
	errText, errType := errorOf(e.Error)
	toolOutcome(&res, e.Function, errText, errType, e.Failed, contentText(e.Result), e.Truncated)
	return call, res
}

// toolOutcome sets a tool_result's status (ok or error), decision (error;
// deny when the approver refused the call) and message.
func toolOutcome(ev *evidence.Event, fn, errText, errType string, failed bool, output string, truncated []parse.Flex) {
	ev.Status = "ok"
	detail := parse.CutText(parse.OneLine(output), 160)
	if errText != "" || failed {
		ev.Status, ev.Decision = "error", evidence.DecisionError
		if errType == "approval" {
			ev.Decision = evidence.DecisionDeny
		}
		if errType != "" {
			ev.Tags = append(ev.Tags, errType)
		}
		if errText != "" {
			detail = parse.Message(errType, headLine(errText))
		}
	}
	trunc := ""
	if len(truncated) == 2 {
		ev.Tags = append(ev.Tags, "truncated")
		trunc = "(output truncated from " + truncated[0].String() + " to " + truncated[1].String() + " bytes)"
	}
	ev.Message = parse.Message("result", fn, ev.Status, detail, trunc)
}

// approvalEvent is the policy_decision an approver made on a tool call.
func approvalEvent(ev evidence.Event, e *inspectEvent, content bool) evidence.Event {
	ev.Kind, ev.Policy, ev.Status = evidence.KindPolicyDecision, e.Approver, e.Decision
	ev.CallID, ev.Tool = e.Call.ID, e.Call.Function
	parse.ToolArgs(&ev, e.Call.Arguments)
	switch e.Decision {
	case "approve":
		ev.Decision = evidence.DecisionAllow
	case "modify":
		ev.Decision, ev.Tags = evidence.DecisionAllow, []string{"modified"}
	case "reject":
		ev.Decision = evidence.DecisionDeny
	case "terminate":
		ev.Decision, ev.Tags = evidence.DecisionDeny, []string{"terminate"}
	case "escalate":
		ev.Tags = []string{"escalate"}
	}
	by := ""
	if e.Approver != "" {
		by = "by " + e.Approver + ":"
	}
	ev.Message = parse.Message(e.Decision, by, e.Explanation, e.Call.Function, parse.ArgsText(e.Call.Arguments))
	if !content {
		// message is the model's text that came with the call.
		ev.Raw = withoutKeys(ev.Raw, "message")
	}
	return ev
}

// sandboxEvent is what the harness did in the sandbox for a tool: run a
// command, read or write a file.
func sandboxEvent(ev evidence.Event, e *inspectEvent) evidence.Event {
	switch e.Action {
	case "exec":
		ev.Kind, ev.Cmdline = evidence.KindProcExec, cmdText(e.Cmd)
		ev.Status = scalarText(e.Result)
		ev.Message = parse.Message("sandbox exec", ev.Cmdline, parse.Labelled("exit", ev.Status))
	case "read_file":
		ev.Kind, ev.Path = evidence.KindFileOpen, e.File
		if credentials.IsPath(e.File) {
			ev.Kind = evidence.KindCredAccess
		}
		ev.Message = parse.Message("sandbox read", e.File)
	case "write_file":
		ev.Kind, ev.Path = evidence.KindFileWrite, e.File
		if in := scalarText(e.Input); !strings.HasPrefix(in, attachPrefix) {
			ev.BytesOut = int64(len(in))
		}
		ev.Message = parse.Message("sandbox write", e.File, parse.Labelled("bytes", itoaNZ(ev.BytesOut)))
	default:
		ev.Kind = evidence.KindOther
		ev.Message = parse.Message("sandbox", e.Action, e.File, cmdText(e.Cmd))
	}
	return ev
}

// noteEvent maps the events that are neither calls nor effects: info and
// log lines, errors, limits, scores, operator input and interrupts,
// compaction, subtasks, and any event type newer than this parser.
func noteEvent(ev evidence.Event, e *inspectEvent) evidence.Event {
	switch e.Event {
	case "info":
		ev.Kind = kindInfo
		ev.Message = parse.Message("info", parse.Labelled("from", e.Source)+":", parse.CutText(parse.OneLine(jsonText(e.Data)), 300))
	case "logger":
		var m struct{ Level, Message, Name string }
		_ = json.Unmarshal(e.Message, &m)
		ev.Kind, ev.Severity, ev.Tags = kindInfo, m.Level, []string{"logger"}
		ev.Message = parse.Message("log", m.Level, m.Name+":", m.Message)
	case "error":
		text, _ := errorOf(e.Error)
		ev.Kind, ev.Status, ev.Decision = kindError, "error", evidence.DecisionError
		ev.Message = parse.Message("error:", headLine(text))
	case "sample_limit":
		ev.Kind, ev.Status = kindSampleLimit, e.Type
		ev.Message = parse.Message("limit", e.Type, e.Limit.String()+":", scalarText(e.Message))
	case "score", "score_edit":
		var sc struct{ Value json.RawMessage }
		_ = json.Unmarshal(e.Score, &sc)
		inter := ""
		if e.Intermediate {
			inter = "(intermediate)"
		}
		ev.Kind = kindScore
		ev.Message = parse.Message("score", parse.FirstOf(e.Scorer, e.ScoreName), jsonText(sc.Value), inter)
	case "input":
		ev.Kind, ev.Status = evidence.KindHumanIntervention, e.Outcome
		ev.Message = parse.Message("operator input", e.Outcome, parse.CutText(parse.OneLine(scalarText(e.Input)), 200))
	case "interrupt":
		ev.Kind, ev.CallID, ev.Status = evidence.KindOther, e.InterruptID, e.Source
		switch e.Source {
		case "user_cancel":
			ev.Kind = evidence.KindHumanIntervention
		case "limit":
			ev.Kind = kindSampleLimit
		}
		ev.Message = parse.Message("interrupt", e.Interrupted, parse.Labelled("by", e.Source))
	case "compaction":
		ev.Kind, ev.Tags = evidence.KindOther, []string{"compaction"}
		ev.Message = parse.Message("compaction", e.Type, "tokens", e.TokensBefore.String(), "→", e.TokensAfter.String())
	case "subtask":
		ev.Kind, ev.Tags = evidence.KindOther, []string{"subtask"}
		ev.Message = parse.Message("subtask", e.Name, e.Type)
	default:
		ev.Kind = evidence.KindOther
		ev.Message = parse.Message(parse.FirstOf(e.Event, "untyped"), "event")
	}
	return ev
}

// inspectMessage is a chat message; older logs have only these.
type inspectMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []inspectCall   `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Function   string          `json:"function"`
	Error      json.RawMessage `json:"error"`
}

// message reads the tool calls of an assistant message and the outcome of
// a tool message, used when the sample has no events (older logs). They
// have no time of their own: they take the session's start.
func (s *inspectSample) message(path string, raw json.RawMessage) {
	if s.hadEvents {
		return
	}
	var m inspectMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		s.reject(path, raw, "not an Inspect message: "+err.Error())
		return
	}
	switch m.Role {
	case "assistant":
		for j, tc := range m.ToolCalls {
			b, _ := json.Marshal(tc)
			ev := evidence.Event{Kind: evidence.KindToolCall, Tool: tc.Function, CallID: tc.ID, Raw: string(b)}
			parse.ToolArgs(&ev, tc.Arguments)
			ev.Message = parse.Message(tc.Function, parse.ArgsText(tc.Arguments))
			s.add(inspectPending{ev: ev, path: path, sub: j, untimed: true}, true)
		}
	case "tool":
		ev := evidence.Event{Kind: evidence.KindToolResult, Tool: m.Function, CallID: m.ToolCallID, Raw: parse.CutText(string(raw), maxInspectRaw)}
		errText, errType := errorOf(m.Error)
		toolOutcome(&ev, m.Function, errText, errType, false, contentText(m.Content), nil)
		s.add(inspectPending{ev: ev, path: path, untimed: true}, true)
	}
}

// cmdText is a command: a string, or an argv list joined by spaces.
func cmdText(v json.RawMessage) string {
	var argv []string
	if json.Unmarshal(v, &argv) == nil {
		return strings.Join(argv, " ")
	}
	return scalarText(v)
}

// jsonText is a JSON string's value, or any other value compacted.
func jsonText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '"' {
		return scalarText(v)
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// withoutKeys drops keys from a JSON object (its keys then come sorted).
func withoutKeys(raw string, keys ...string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &m) != nil {
		return raw
	}
	for _, k := range keys {
		delete(m, k)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return string(b)
}

func itoaNZ(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}
