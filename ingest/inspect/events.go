package inspect

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// Kinds of Inspect events with no counterpart in the ledger.
const (
	kindInfo        = "info"
	kindError       = "error"
	kindSampleLimit = "sample_limit"
	kindScore       = "score"
)

// inspectSkipped are transcript bookkeeping: spans, state and store diffs
// (which repeat message content), steps and replay markers.
var inspectSkipped = map[string]bool{
	"span_begin": true, "span_end": true, "state": true, "store": true, "step": true,
	"sample_init": true, "anchor": true, "branch": true, "checkpoint": true,
}

// maxInspectNesting bounds how deep nested events (subtasks in subtasks)
// are followed.
const maxInspectNesting = 8

// maxInspectRaw bounds the raw JSON kept for one event: a longer one (a
// tool result of megabytes) keeps its start, and its origin says where the
// rest is.
const maxInspectRaw = 64 << 10

// inspectEvent holds the fields cordon reads from every event type. Fields
// whose shape differs between types stay raw: input (model messages, a
// file's content, typed text), result (tool output, exit code), error (a
// string or an object), message (a string or a log record), output.
type inspectEvent struct {
	Event     string          `json:"event"`
	Timestamp string          `json:"timestamp"`
	Completed string          `json:"completed"`
	SpanID    string          `json:"span_id"`
	Input     json.RawMessage `json:"input"`
	Result    json.RawMessage `json:"result"`
	Error     json.RawMessage `json:"error"`
	Message   json.RawMessage `json:"message"`
	Output    json.RawMessage `json:"output"`
	Events    []json.RawMessage

	Model     string          `json:"model"` // model
	InputRefs json.RawMessage `json:"input_refs"`
	Cache     string          `json:"cache"`

	ID        string          `json:"id"` // tool
	Function  string          `json:"function"`
	Arguments json.RawMessage `json:"arguments"`
	Truncated []parse.Flex    `json:"truncated"`
	Failed    bool            `json:"failed"`
	Agent     string          `json:"agent"`

	Call        inspectCall `json:"call"` // approval
	Approver    string      `json:"approver"`
	Decision    string      `json:"decision"`
	Explanation string      `json:"explanation"`

	Action string          `json:"action"` // sandbox
	Cmd    json.RawMessage `json:"cmd"`
	File   string          `json:"file"`

	Source       string          `json:"source"` // info, limits, scores, input, interrupt, compaction, subtask
	Data         json.RawMessage `json:"data"`
	Type         string          `json:"type"`
	Limit        json.Number     `json:"limit"`
	Score        json.RawMessage `json:"score"`
	Scorer       string          `json:"scorer"`
	ScoreName    string          `json:"score_name"`
	Intermediate bool            `json:"intermediate"`
	Outcome      string          `json:"outcome"`
	Interrupted  string          `json:"interrupted"`
	InterruptID  string          `json:"interrupted_tool_call_id"`
	Name         string          `json:"name"`
	TokensBefore parse.Flex      `json:"tokens_before"`
	TokensAfter  parse.Flex      `json:"tokens_after"`
}

// inspectCall is a ToolCall: of an assistant message, or under approval.
type inspectCall struct {
	ID        string          `json:"id"`
	Function  string          `json:"function"`
	Arguments json.RawMessage `json:"arguments"`
}

// event turns one transcript event into pending evidence. A bad event is a
// reject of that event alone.
func (s *inspectSample) event(path string, raw json.RawMessage) {
	var e inspectEvent
	if err := json.Unmarshal(raw, &e); err != nil {
		// A field of an unexpected type (a newer schema) leaves the rest read.
		if te := (*json.UnmarshalTypeError)(nil); !errors.As(err, &te) {
			s.reject(path, raw, "not an Inspect event: "+err.Error())
			return
		}
	}
	t, terr := inspectTime(e.Timestamp)
	if inspectSkipped[e.Event] {
		s.seen(t)
		if e.Event == "span_begin" && e.Type == "scorer" {
			s.scorers[e.ID] = e.Name
		}
		return
	}
	if terr != nil {
		s.reject(path, raw, parse.FirstOf(e.Event, "untyped")+" event: "+terr.Error())
		return
	}
	done, _ := inspectTime(e.Completed)
	s.seen(t, done)
	ev := evidence.Event{Time: t}
	if e.Event != "model" {
		ev.Raw = parse.CutText(string(raw), maxInspectRaw)
	}
	add := func(ev evidence.Event, sub int) { s.add(inspectPending{ev: ev, path: path, sub: sub}, false) }
	switch e.Event {
	case "model":
		add(s.modelCall(ev, &e, raw), 0)
	case "tool":
		call, res := toolEvents(ev, &e, done)
		add(call, 0)
		add(res, 1)
	case "approval":
		add(approvalEvent(ev, &e, s.p.opt.Content), 0)
	case "sandbox":
		add(sandboxEvent(ev, &e), 0)
	default:
		if e.Scorer == "" {
			e.Scorer = s.scorers[e.SpanID]
		}
		add(noteEvent(ev, &e), 0)
	}
	// Older logs nest a tool's sandbox calls, and a subtask's transcript.
	if strings.Count(path, "/events/") >= maxInspectNesting {
		if len(e.Events) > 0 {
			s.reject(path, nil, "events nested deeper than "+strconv.Itoa(maxInspectNesting)+" levels were not read")
		}
		return
	}
	for i, sub := range e.Events {
		s.event(path+"/events/"+strconv.Itoa(i), sub)
	}
}

// modelCall is a model_call: which model, how many tokens, and a digest of
// what it was sent; the content itself only with Options.Content.
func (s *inspectSample) modelCall(ev evidence.Event, e *inspectEvent, raw json.RawMessage) evidence.Event {
	var out struct {
		Model   string `json:"model"`
		Choices []struct {
			Message    inspectMessage `json:"message"`
			StopReason string         `json:"stop_reason"`
		} `json:"choices"`
		Usage struct {
			InputTokens  parse.Flex `json:"input_tokens"`
			OutputTokens parse.Flex `json:"output_tokens"`
		} `json:"usage"`
	}
	_ = json.Unmarshal(e.Output, &out)
	ev.Kind, ev.Model = parse.KindModelCall, e.Model
	input := e.Input
	if len(bytes.TrimSpace(input)) == 0 || string(bytes.TrimSpace(input)) == "[]" {
		input = e.InputRefs // newer logs pool inputs and keep references here
	}
	digest := digestJSON(input)
	snapshot, stop := snapshotOf(e.Model, out.Model), ""
	var calls []string
	for _, c := range out.Choices {
		stop = parse.FirstOf(stop, c.StopReason)
		for _, tc := range c.Message.ToolCalls {
			calls = append(calls, tc.Function)
		}
	}
	errText, _ := errorOf(e.Error)
	if errText != "" {
		ev.Status, ev.Decision = "error", evidence.DecisionError
		errText = "error: " + headLine(errText)
	}
	in, outTok := out.Usage.InputTokens.String(), out.Usage.OutputTokens.String()
	tokens := ""
	if in != "" || outTok != "" {
		tokens = "tokens in " + parse.FirstOf(in, "0") + " out " + parse.FirstOf(outTok, "0")
	}
	cache := ""
	if e.Cache != "" {
		cache = "cache " + e.Cache
	}
	ev.Message = parse.Message(e.Model, snapshot, tokens, parse.Labelled("stop_reason", stop), parse.Labelled("calls", strings.Join(calls, ",")),
		cache, errText, "input sha256:"+digest)
	if !s.p.opt.Content {
		summary := map[string]any{"event": "model", "timestamp": e.Timestamp, "model": e.Model, "output_model": out.Model,
			"input_tokens": in, "output_tokens": outTok, "stop_reason": stop, "tool_calls": calls,
			"input_sha256": digest, "content": "omitted (InspectOptions.Content)"}
		b, _ := json.Marshal(summary)
		ev.Raw = string(b)
		return ev
	}
	ev.Raw = parse.CutText(string(raw), maxInspectRaw)
	prompt := ""
	var msgs []inspectMessage
	if json.Unmarshal(e.Input, &msgs) == nil && len(msgs) > 0 {
		prompt = contentText(msgs[len(msgs)-1].Content)
	}
	reply := ""
	if len(out.Choices) > 0 {
		reply = contentText(out.Choices[0].Message.Content)
	}
	ev.Message = parse.Message(ev.Message, parse.Labelled("prompt:", parse.OneLine(parse.CutText(prompt, 1024))), parse.Labelled("reply:", parse.OneLine(parse.CutText(reply, 1024))))
	return ev
}

// snapshotOf is "(snapshot)" when the model that answered names more than
// the model asked for (gpt-4o-mini-2024-07-18 for openai/gpt-4o-mini).
func snapshotOf(asked, answered string) string {
	if answered == "" || answered == asked || strings.HasSuffix(asked, "/"+answered) {
		return ""
	}
	return "(" + answered + ")"
}

// digestJSON is the sha256 of a JSON value with its whitespace removed, so
// a .json log and its .eval copy give the same digest.
func digestJSON(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		b.Reset()
		b.Write(v)
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

// errorOf reads an error that is a string (model events) or an object with
// a message and a type (tool errors, EvalError).
func errorOf(v json.RawMessage) (text, typ string) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return "", ""
	}
	if v[0] != '{' {
		return scalarText(v), ""
	}
	var o struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(v, &o)
	return parse.FirstOf(o.Message, o.Type, "error"), o.Type
}
