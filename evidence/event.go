package evidence

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Sources of evidence.
const (
	SourceLedger = "ledger"
	SourceProxy  = "proxy"
	SourceSensor = "sensor"
	// SourceAudit is the audit log of a service that accepts credentials
	// (a cloud's API, a Kubernetes API server, a code host): where a
	// credential that left its sandbox is seen used.
	SourceAudit = "audit"
)

// LedgerFormat is the tool gateway's own ledger (ledger-v1): the issuer of
// sessions, whose session records are the harness's word (a session it
// ended "killed" is a kill).
const LedgerFormat = "cordon-ledger"

// Normalized kinds. Parsers may emit others (e.g. "other"), these are the
// ones the rest of cordon reasons about.
const (
	KindSessionStart      = "session_start"
	KindSessionEnd        = "session_end"
	KindPrompt            = "prompt"
	KindToolCall          = "tool_call"
	KindToolResult        = "tool_result"
	KindPolicyDecision    = "policy_decision"
	KindNetRequest        = "net_request"
	KindNetConnect        = "net_connect"
	KindDNSQuery          = "dns_query"
	KindProcExec          = "proc_exec"
	KindProcExit          = "proc_exit"
	KindFileOpen          = "file_open"
	KindFileWrite         = "file_write"
	KindCredAccess        = "cred_access"
	KindHumanIntervention = "human_intervention"
	KindSummary           = "summary"
	KindAlert             = "alert"
	KindSensorGap         = "sensor_gap"
	KindSensorStats       = "sensor_stats"
	KindOther             = "other"
	// KindAPICall is a call to a service's API as its audit log records
	// it: who (credential, principal), from where, what, and the answer.
	KindAPICall = "api_call"
)

// Decisions.
const (
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
	DecisionError = "error"
)

// Event is one normalized piece of evidence. The JSON keys are the index field
// names and the keys of `--json` output.
type Event struct {
	ID            string    `json:"id"`
	Time          time.Time `json:"time"`
	Source        string    `json:"source"`
	Format        string    `json:"format"`
	Kind          string    `json:"kind"`
	Agent         string    `json:"agent,omitempty"`
	AttributedVia string    `json:"attributed_via,omitempty"`

	Run       string `json:"run,omitempty"`
	Session   string `json:"session,omitempty"`
	Sandbox   string `json:"sandbox,omitempty"`
	Model     string `json:"model,omitempty"`
	Objective string `json:"objective,omitempty"`

	Tool     string   `json:"tool,omitempty"`
	Decision string   `json:"decision,omitempty"`
	Policy   string   `json:"policy,omitempty"`
	Severity string   `json:"severity,omitempty"`
	Tags     []string `json:"tags,omitempty"`

	SrcIP   string `json:"src_ip,omitempty"`
	SrcPort int    `json:"src_port,omitempty"`
	DstHost string `json:"dst_host,omitempty"`
	DstIP   string `json:"dst_ip,omitempty"`
	DstPort int    `json:"dst_port,omitempty"`
	URL     string `json:"url,omitempty"`
	Method  string `json:"method,omitempty"`
	Status  string `json:"status,omitempty"`
	// UserAgent is the request's User-Agent header, where the proxy's log
	// format has it (gh-aw-firewall's Squid format, Envoy's).
	UserAgent string `json:"user_agent,omitempty"`
	BytesOut  int64  `json:"bytes_out,omitempty"`
	BytesIn   int64  `json:"bytes_in,omitempty"`
	// DurationMS is how long the request, connection or call lasted, when
	// the record says (Squid's elapsed field, Envoy's duration, a tool
	// result's duration_ms). Squid writes a transaction at its end, so
	// there it began DurationMS before Time; elsewhere Time is its start.
	DurationMS int64 `json:"duration_ms,omitempty"`

	Pid     int    `json:"pid,omitempty"`
	Ppid    int    `json:"ppid,omitempty"`
	Cmdline string `json:"cmdline,omitempty"`
	Path    string `json:"path,omitempty"`
	User    string `json:"user,omitempty"`
	Host    string `json:"host,omitempty"`
	// ParentExe and ParentCmdline are the parent process's program and
	// command line, Cwd the process's working directory, where the sensor
	// reports them (Tetragon's parent and cwd; Falco's proc.p* fields).
	ParentExe     string `json:"parent_exe,omitempty"`
	ParentCmdline string `json:"parent_cmdline,omitempty"`
	Cwd           string `json:"cwd,omitempty"`

	CallID       string `json:"call_id,omitempty"`
	ExecID       string `json:"exec_id,omitempty"`
	ParentExecID string `json:"parent_exec_id,omitempty"`
	TraceID      string `json:"trace_id,omitempty"`
	SpanID       string `json:"span_id,omitempty"`

	Container  string   `json:"container,omitempty"`
	Pod        string   `json:"pod,omitempty"`
	Credential []string `json:"credential,omitempty"`

	// ToolsAllowed and EgressAllowlist are what a session_start grants.
	ToolsAllowed    []string `json:"tools_allowed,omitempty"`
	EgressAllowlist []string `json:"egress_allowlist,omitempty"`

	Message string `json:"message"`
	Raw     string `json:"raw,omitempty"`
	Origin  string `json:"origin,omitempty"`

	// Cut names the fields whose indexed copy was cut at MaxIndexed bytes
	// (set by the store). The event keeps them whole; searches see their
	// start only, and detectors and evidence checks match such events on
	// the whole fields.
	Cut []string `json:"cut,omitempty"`
}

// Size is about how many bytes of text the event holds: what it costs to
// keep, index and write, in proportion.
func (ev *Event) Size() int {
	n := 256 // the fixed fields and the document around them
	for _, v := range [...]string{ev.ID, ev.Source, ev.Format, ev.Kind, ev.Agent, ev.AttributedVia,
		ev.Run, ev.Session, ev.Sandbox, ev.Model, ev.Objective, ev.Tool, ev.Decision, ev.Policy,
		ev.Severity, ev.SrcIP, ev.DstHost, ev.DstIP, ev.URL, ev.Method, ev.Status, ev.Cmdline,
		ev.Path, ev.User, ev.Host, ev.UserAgent, ev.ParentExe, ev.ParentCmdline, ev.Cwd, ev.CallID, ev.ExecID, ev.ParentExecID, ev.TraceID, ev.SpanID,
		ev.Container, ev.Pod, ev.Message, ev.Raw, ev.Origin} {
		n += len(v)
	}
	for _, l := range [][]string{ev.Tags, ev.Credential, ev.ToolsAllowed, ev.EgressAllowlist} {
		for _, v := range l {
			n += len(v)
		}
	}
	return n
}

// MakeID returns the stable id of the n-th event parsed from the record at
// offset in a stream of the given format. The same bytes at the same offset
// give the same id wherever the file lives, so re-ingesting a copy, a rotated
// log or a restarted run never duplicates an event, while two identical lines
// at different offsets stay two events.
func MakeID(format string, offset int64, n int, raw []byte) string {
	h := sha256.New()
	h.Write([]byte(format))
	h.Write([]byte{0})
	h.Write(strconv.AppendInt(nil, offset, 10))
	h.Write([]byte{0})
	h.Write(strconv.AppendInt(nil, int64(n), 10))
	h.Write([]byte{0})
	h.Write(raw)
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:8])
}

// Target is what an event acted on: a destination, a path, a command line or
// a tool.
func (ev Event) Target() string {
	switch {
	case ev.DstHost != "":
		if ev.DstPort != 0 {
			return ev.DstHost + ":" + strconv.Itoa(ev.DstPort)
		}
		return ev.DstHost
	case ev.DstIP != "":
		return ev.DstIP + ":" + strconv.Itoa(ev.DstPort)
	case ev.Path != "":
		return ev.Path
	case ev.Cmdline != "":
		return ev.Cmdline
	}
	return ev.Tool
}

// Who is whose an event is as a table's AGENT column shows it: its agent;
// else the person a responder's exec made it ("(oncall:pdiaz)"); else the
// agents it is ambiguous between ("?agent-3|agent-7"); else "".
func (ev *Event) Who() string {
	if ev.Agent != "" {
		return ev.Agent
	}
	var cands []string
	for _, t := range ev.Tags {
		if a, ok := strings.CutPrefix(t, "actor:"); ok {
			return "(" + a + ")"
		}
		if a, ok := strings.CutPrefix(t, "candidate:"); ok {
			cands = append(cands, a)
		}
	}
	if len(cands) > 0 {
		return "?" + strings.Join(cands, "|")
	}
	return ""
}
