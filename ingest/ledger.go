package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// ledger parses cordon's forensic ledger v1 (docs/ledger.md).
type ledger struct{}

// NewLedger returns the parser for cordon ledger v1 JSON Lines.
func NewLedger() Parser { return ledger{} }

func (ledger) Format() string   { return "cordon-ledger" }
func (ledger) Source() string   { return evidence.SourceLedger }
func (ledger) Framing() Framing { return JSON }

func (ledger) Sniff(rec []byte) bool {
	var probe struct {
		V    json.RawMessage `json:"v"`
		TS   string          `json:"ts"`
		Type string          `json:"type"`
	}
	if json.Unmarshal(rec, &probe) != nil {
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
	PacketDigest string `json:"packet_digest"`
	Tokens       Flex   `json:"tokens"`
	Excerpt      string `json:"excerpt"`
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
	OutputDigest  string `json:"output_digest"`
	// net_event
	Direction string `json:"direction"`
	DstHost   string `json:"dst_host"`
	DstIP     string `json:"dst_ip"`
	DstPort   Flex   `json:"dst_port"`
	Protocol  string `json:"protocol"`
	BytesOut  Flex   `json:"bytes_out"`
	BytesIn   Flex   `json:"bytes_in"`
	// file_write
	Path  string `json:"path"`
	Bytes Flex   `json:"bytes"`
	Mode  string `json:"mode"`
	// summary
	Text string `json:"text"`
	// human_intervention
	Actor  string `json:"actor"`
	Action string `json:"action"`
	Note   string `json:"note"`
}

func (ledger) Parse(rec Record) ([]evidence.Event, error) {
	var r ledgerRecord
	if err := json.Unmarshal(rec.Data, &r); err != nil {
		return nil, fmt.Errorf("not a ledger record: %w", err)
	}
	if string(r.V) != "1" {
		return nil, fmt.Errorf("ledger version %s, want 1", orNone(string(r.V)))
	}
	if r.Type == "" {
		return nil, errors.New("ledger record has no type")
	}
	if r.TS == "" {
		return nil, errors.New("ledger record has no ts")
	}
	t, err := RFC3339(r.TS)
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
		ev.Message = Message("session start", r.Model, "sandbox", r.Sandbox.ID, r.Sandbox.IP, "objective:", r.Objective)
	case "session_end":
		ev.Status = r.Reason
		ev.Message = Message("session end:", r.Reason)
	case "prompt":
		ev.Message = Message("prompt", r.Tokens.String(), "tokens digest", short(r.PacketDigest), r.Excerpt)
	case "tool_call":
		ev.Tool = r.Tool
		args := argsText(r.Args)
		ev.Cmdline = argString(r.Args, "cmd", "command", "cmdline", "script")
		ev.Path = argString(r.Args, "path", "file", "filename")
		ev.URL = argString(r.Args, "url", "uri")
		retry := ""
		if r.RetryOf != "" {
			retry = "(retry of " + r.RetryOf + ")"
		}
		ev.Message = Message(r.Tool, args, retry)
	case "policy_decision":
		ev.Decision, ev.Policy = r.Decision, r.Policy
		if r.Target != "" {
			ev.DstHost, ev.DstPort = SplitHostPort(r.Target)
		}
		ev.Message = Message(r.Decision, "by", r.Policy+":", r.Reason, r.Target)
	case "tool_result":
		ev.Status = r.Status
		switch r.Status {
		case "denied":
			ev.Decision = evidence.DecisionDeny
		case "error":
			ev.Decision = evidence.DecisionError
		}
		ev.Message = Message("result", r.Status, r.OutputExcerpt)
	case "net_event":
		ev.Kind = evidence.KindNetRequest
		ev.DstHost, ev.DstIP, ev.DstPort = r.DstHost, r.DstIP, int(r.DstPort.Int())
		ev.BytesOut, ev.BytesIn = r.BytesOut.Int(), r.BytesIn.Int()
		ev.Method = r.Protocol
		ev.Message = Message(r.Direction, r.Protocol, hostPort(r.DstHost, r.DstIP, int(r.DstPort.Int())),
			"out", r.BytesOut.String(), "in", r.BytesIn.String())
	case "file_write":
		ev.Path = r.Path
		ev.BytesOut = r.Bytes.Int()
		ev.Message = Message("write", r.Path, r.Bytes.String(), "bytes", r.Mode)
	case "summary":
		ev.Message = Message("summary:", r.Text)
	case "human_intervention":
		ev.User = r.Actor
		ev.Message = Message(r.Actor, r.Action, r.Note)
	default:
		ev.Kind = evidence.KindOther
		ev.Message = Message(r.Type)
	}
	return []evidence.Event{ev}, nil
}

func orNone(s string) string {
	if s == "" {
		return "missing"
	}
	return s
}

func short(digest string) string {
	digest = strings.TrimPrefix(digest, "sha256:")
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}

func hostPort(host, ip string, port int) string {
	if host == "" {
		host = ip
	}
	if port == 0 {
		return host
	}
	return host + ":" + strconv.Itoa(port)
}

// argsText renders tool arguments as one line of key=value pairs in key order.
func argsText(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return string(bytes.TrimSpace(raw))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		v := m[k]
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v)
		}
		parts = append(parts, k+"="+s)
	}
	return strings.Join(parts, " ")
}

// argString returns the first string argument found under one of keys.
func argString(raw json.RawMessage, keys ...string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	for _, k := range keys {
		var s string
		if v, ok := m[k]; ok && json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
