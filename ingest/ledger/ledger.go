package ledger

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// parser parses cordon's forensic ledger v1 (docs/ledger.md).
type parser struct{}

// New returns the parser for cordon ledger v1 JSON Lines.
func New() parse.Parser { return parser{} }

func (parser) Format() string         { return evidence.LedgerFormat }
func (parser) Source() string         { return evidence.SourceLedger }
func (parser) Framing() parse.Framing { return parse.JSON }

func (parser) Sniff(rec []byte) bool {
	var probe struct {
		V    json.RawMessage `json:"v"`
		TS   string          `json:"ts"`
		Type string          `json:"type"`
	}
	if parse.Unmarshal(rec, &probe) != nil {
		return false
	}
	return string(probe.V) == "1" && probe.TS != "" && probe.Type != ""
}

type ledgerRecord struct {
	V       json.RawMessage `json:"v"`
	TS      string          `json:"ts"`
	Type    string          `json:"type"`
	Run     string          `json:"run"`
	Agent   string          `json:"agent"`
	Session string          `json:"session"`
	CallID  string          `json:"call_id"`

	// session_start
	Model     string `json:"model"`
	Objective string `json:"objective"`
	Sandbox   struct {
		ID          string `json:"id"`
		ContainerID string `json:"container_id"`
		IP          string `json:"ip"`
		Host        string `json:"host"`
		Pod         string `json:"pod"`
	} `json:"sandbox"`
	Credentials []struct {
		ID    string `json:"id"`
		Kind  string `json:"kind"`
		Scope string `json:"scope"`
	} `json:"credentials"`
	ToolsAllowed    []string `json:"tools_allowed"`
	EgressAllowlist []string `json:"egress_allowlist"`
	// session_end
	Reason string `json:"reason"`
	// prompt
	PacketDigest string     `json:"packet_digest"`
	Tokens       parse.Flex `json:"tokens"`
	Excerpt      string     `json:"excerpt"`
	// tool_call
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
	RetryOf  string          `json:"retry_of"`
	ReadOnly *bool           `json:"read_only"`
	// policy_decision
	Decision string `json:"decision"`
	Policy   string `json:"policy"`
	Target   string `json:"target"`
	// tool_result
	Status        string `json:"status"`
	OutputExcerpt string `json:"output_excerpt"`
	// DurationMS is how long the call ran, when the gateway says.
	DurationMS   parse.Flex `json:"duration_ms"`
	OutputDigest string     `json:"output_digest"`
	// net_event
	Direction string     `json:"direction"`
	DstHost   string     `json:"dst_host"`
	DstIP     string     `json:"dst_ip"`
	DstPort   parse.Flex `json:"dst_port"`
	Protocol  string     `json:"protocol"`
	BytesOut  parse.Flex `json:"bytes_out"`
	BytesIn   parse.Flex `json:"bytes_in"`
	// file_write
	Path  string     `json:"path"`
	Bytes parse.Flex `json:"bytes"`
	Mode  string     `json:"mode"`
	// summary
	Text string `json:"text"`
	// human_intervention
	Actor  string `json:"actor"`
	Action string `json:"action"`
	Note   string `json:"note"`
}

func (parser) Parse(rec parse.Record) ([]evidence.Event, error) {
	var r ledgerRecord
	if err := parse.Unmarshal(rec.Data, &r); err != nil {
		return nil, fmt.Errorf("not a ledger record: %w", err)
	}
	if string(r.V) != "1" {
		return nil, fmt.Errorf("ledger version %s, want 1", parse.OrNone(string(r.V)))
	}
	if r.Type == "" {
		return nil, errors.New("ledger record has no type")
	}
	if r.TS == "" {
		return nil, errors.New("ledger record has no ts")
	}
	t, err := parse.RFC3339(r.TS)
	if err != nil {
		return nil, err
	}
	if r.Agent == "" && r.Type != "human_intervention" {
		return nil, fmt.Errorf("ledger %s record has no agent", r.Type)
	}
	ev := evidence.Event{
		Time: t, Kind: r.Type, Run: r.Run, Agent: r.Agent, Session: r.Session, CallID: r.CallID,
	}
	if r.Agent != "" {
		ev.AttributedVia = "record"
	}
	var num parse.Numbers
	switch r.Type {
	case "session_start":
		ev.Model, ev.Objective = r.Model, r.Objective
		ev.Sandbox, ev.Container, ev.SrcIP, ev.Host, ev.Pod = r.Sandbox.ID, r.Sandbox.ContainerID, r.Sandbox.IP, r.Sandbox.Host, r.Sandbox.Pod
		for _, c := range r.Credentials {
			if c.ID != "" {
				ev.Credential = append(ev.Credential, c.ID)
			}
		}
		ev.ToolsAllowed, ev.EgressAllowlist = r.ToolsAllowed, r.EgressAllowlist
		ev.Message = parse.Message("session start", r.Model, "sandbox", r.Sandbox.ID, r.Sandbox.IP, "objective:", r.Objective)
	case "session_end":
		ev.Status = r.Reason
		ev.Message = parse.Message("session end:", r.Reason)
	case "prompt":
		ev.Message = parse.Message("prompt", r.Tokens.String(), "tokens digest", parse.ShortDigest(r.PacketDigest), r.Excerpt)
	case "tool_call":
		ev.Tool = r.Tool
		args := parse.ArgsText(r.Args)
		ev.Cmdline = parse.ArgString(r.Args, "cmd", "command", "cmdline", "script")
		ev.Path = parse.ArgString(r.Args, "path", "file", "filename")
		ev.URL = parse.ArgString(r.Args, "url", "uri")
		retry := ""
		if r.RetryOf != "" {
			retry = "(retry of " + r.RetryOf + ")"
		}
		ev.Message = parse.Message(r.Tool, args, retry)
	case "policy_decision":
		ev.Decision, ev.Policy = r.Decision, r.Policy
		if r.Target != "" {
			ev.DstHost, ev.DstPort = num.HostPort("target", r.Target)
		}
		ev.Message = parse.Message(r.Decision, "by", r.Policy+":", r.Reason, r.Target)
	case "tool_result":
		ev.Status = r.Status
		switch r.Status {
		case "denied":
			ev.Decision = evidence.DecisionDeny
		case "error":
			ev.Decision = evidence.DecisionError
		}
		ev.Message = parse.Message("result", r.Status, r.OutputExcerpt)
		ev.DurationMS = num.Duration("duration_ms", r.DurationMS)
	case "net_event":
		ev.Kind = evidence.KindNetRequest
		ev.DstHost, ev.DstIP, ev.DstPort = r.DstHost, r.DstIP, num.Port("dst_port", r.DstPort)
		ev.BytesOut, ev.BytesIn = num.Count("bytes_out", r.BytesOut), num.Count("bytes_in", r.BytesIn)
		ev.Method = r.Protocol
		ev.Message = parse.Message(r.Direction, r.Protocol, parse.HostPort(r.DstHost, r.DstIP, ev.DstPort),
			"out", r.BytesOut.String(), "in", r.BytesIn.String())
	case "file_write":
		ev.Path = r.Path
		ev.BytesOut = num.Count("bytes", r.Bytes)
		ev.Message = parse.Message("write", r.Path, r.Bytes.String(), "bytes", r.Mode)
	case "summary":
		ev.Message = parse.Message("summary:", r.Text)
	case "human_intervention":
		ev.User = r.Actor
		ev.Message = parse.Message(r.Actor, r.Action, r.Note)
	default:
		ev.Kind = evidence.KindOther
		ev.Message = parse.Message(r.Type)
	}
	if err := num.Err(); err != nil {
		return nil, err
	}
	return []evidence.Event{ev}, nil
}
