package falco

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// parser parses Falco JSON alerts (json_output: true), including the
// metrics snapshots and drop notices Falco writes to the same channel.
type parser struct{}

// New returns the parser for Falco JSON alerts.
func New() parse.Parser { return parser{} }

func (parser) Format() string         { return "falco" }
func (parser) Source() string         { return evidence.SourceSensor }
func (parser) Framing() parse.Framing { return parse.JSON }

// falcoPriorities are Falco's priority names, lowercased.
var falcoPriorities = map[string]bool{
	"emergency": true, "alert": true, "critical": true, "error": true, "warning": true,
	"notice": true, "informational": true, "info": true, "debug": true,
}

// Sniff wants a rule, a known priority and Falco's output or output_fields:
// no other known format has a rule and a syslog-like priority together.
func (parser) Sniff(rec []byte) bool {
	var probe struct {
		Rule         string          `json:"rule"`
		Priority     string          `json:"priority"`
		Output       *string         `json:"output"`
		OutputFields json.RawMessage `json:"output_fields"`
	}
	if parse.Unmarshal(rec, &probe) != nil {
		return false
	}
	fields := len(probe.OutputFields) > 0 && probe.OutputFields[0] == '{'
	return probe.Rule != "" && falcoPriorities[strings.ToLower(probe.Priority)] && (probe.Output != nil || fields)
}

type falcoAlert struct {
	Time         string                `json:"time"`
	Rule         string                `json:"rule"`
	Priority     string                `json:"priority"`
	Source       string                `json:"source"`
	Hostname     string                `json:"hostname"`
	Output       string                `json:"output"`
	Message      string                `json:"message"`
	Tags         []string              `json:"tags"`
	OutputFields map[string]parse.Flex `json:"output_fields"`
}

const (
	falcoMetricsRule = "Falco internal: metrics snapshot"
	falcoDropRule    = "Falco internal: syscall event drop"
)

func (parser) Parse(rec parse.Record) ([]evidence.Event, error) {
	var a falcoAlert
	if err := parse.Unmarshal(rec.Data, &a); err != nil {
		return nil, fmt.Errorf("not a falco alert: %w", err)
	}
	if a.Rule == "" {
		return nil, errors.New("falco alert has no rule")
	}
	f := a.OutputFields
	t, err := falcoTime(a.Time, f["evt.time"])
	if err != nil {
		return nil, err
	}
	var num parse.Numbers
	ev := evidence.Event{
		Time: t, Policy: a.Rule, Severity: strings.ToLower(a.Priority), Tags: a.Tags,
		Host:    parse.FirstOf(a.Hostname, f["evt.hostname"].String()),
		Cmdline: f["proc.cmdline"].String(), Pid: num.Pid("proc.pid", f["proc.pid"]), Ppid: num.Pid("proc.ppid", f["proc.ppid"]),
		User: parse.FirstOf(f["user.name"].String(), f["ka.user.name"].String()),
		// the parent's path when the rule's output has it, else its name
		ParentExe:     parse.FirstOf(f["proc.pexepath"].String(), f["proc.pexe"].String(), f["proc.pname"].String()),
		ParentCmdline: f["proc.pcmdline"].String(),
		Cwd:           f["proc.cwd"].String(),
	}
	if c := strings.ToLower(f["container.id"].String()); c != "host" {
		ev.Container = c
	}
	ev.Pod = parse.PodName(f["k8s.ns.name"].String(), f["k8s.pod.name"].String())
	audit := falcoAudit(a.Source, f)
	if audit {
		ev.URL, ev.Method, ev.Status = f["ka.uri"].String(), f["ka.verb"].String(), f["ka.response.code"].String()
		// The API server refused the request: the record says it was blocked.
		if f["ka.auth.decision"].String() == "forbid" || ev.Status == "401" || ev.Status == "403" {
			ev.Decision = evidence.DecisionDeny
		}
	} else {
		falcoNet(&ev, f, &num)
	}
	if err := num.Err(); err != nil {
		return nil, err
	}
	ev.Kind = falcoKind(a.Rule, a.Output, audit, f, &ev)
	ev.Message = falcoMessage(&a, &ev, audit)
	return []evidence.Event{ev}, nil
}

// falcoTime prefers the ISO time; evt.time (integer nanoseconds, beyond
// float64 precision) is read from its digits.
func falcoTime(iso string, evt parse.Flex) (time.Time, error) {
	if iso != "" {
		return parse.NonZeroTime(iso)
	}
	if evt.String() == "" {
		return time.Time{}, errors.New("falco alert has no time")
	}
	ns, err := strconv.ParseInt(evt.String(), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad falco evt.time %q", evt.String())
	}
	return time.Unix(0, ns).UTC(), nil
}

// falcoAudit reports an alert of the k8s_audit source (old lines carry no
// source, only ka.* fields).
func falcoAudit(source string, f map[string]parse.Flex) bool {
	if source != "" {
		return source == "k8s_audit"
	}
	for k := range f {
		if strings.HasPrefix(k, "ka.") {
			return true
		}
	}
	return false
}

// falcoNet fills the connection tuple: fd.name "cip:cport->sip:sport" for
// sockets (client first), else the fd.cip/fd.sip fields. A file fd.name is
// the path.
func falcoNet(ev *evidence.Event, f map[string]parse.Flex, num *parse.Numbers) {
	ev.DstHost = f["fd.sip.name"].String()
	name := f["fd.name"].String()
	if src, dst, ok := strings.Cut(name, "->"); ok {
		sip, sport := splitAddrPort(src, num)
		dip, dport := splitAddrPort(dst, num)
		if parse.IsIP(sip) && parse.IsIP(dip) {
			ev.SrcIP, ev.SrcPort, ev.DstIP, ev.DstPort = sip, sport, dip, dport
			return
		}
	}
	if strings.HasPrefix(name, "/") {
		ev.Path = name
	}
	// fd.cip/fd.sip are client and server; fd.lip/fd.rip local and remote,
	// whose direction fd.is_server tells.
	ev.SrcIP, ev.SrcPort = f["fd.cip"].String(), num.Port("fd.cport", f["fd.cport"])
	ev.DstIP, ev.DstPort = f["fd.sip"].String(), num.Port("fd.sport", f["fd.sport"])
	lip, lport, rip, rport := f["fd.lip"].String(), num.Port("fd.lport", f["fd.lport"]), f["fd.rip"].String(), num.Port("fd.rport", f["fd.rport"])
	if f["fd.is_server"].String() == "true" {
		lip, lport, rip, rport = rip, rport, lip, lport
	}
	if ev.SrcIP == "" {
		ev.SrcIP, ev.SrcPort = lip, lport
	}
	if ev.DstIP == "" {
		ev.DstIP, ev.DstPort = rip, rport
	}
}

// splitAddrPort splits one side of a Falco socket tuple. libsinsp always
// writes "addr:port", IPv6 without brackets ("2001:db8::1:443"), so the port
// is after the last colon; a port resolved to a service name reads as 0,
// a number that is no port is an error in num.
func splitAddrPort(s string, num *parse.Numbers) (string, int) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	return strings.Trim(s[:i], "[]"), num.Port("fd.name port", parse.Flex(s[i+1:]))
}

// falcoKind derives the action an alert is about: the syscall when the
// rule output has evt.type, else the fd and the rule name.
func falcoKind(rule, output string, audit bool, f map[string]parse.Flex, ev *evidence.Event) string {
	r := strings.ToLower(rule)
	evt := f["evt.type"].String()
	switch {
	case rule == falcoMetricsRule:
		return evidence.KindSensorStats
	case rule == falcoDropRule || strings.Contains(output, falcoDropRule):
		return evidence.KindSensorGap
	case audit || (f["evt.source"].String() != "" && f["evt.source"].String() != "syscall"):
		return evidence.KindAlert
	case evt == "execve" || evt == "execveat":
		return evidence.KindProcExec
	case ev.DstIP != "" || evt == "connect" || hasAny(r, "connect", "contact", "outbound", "inbound"):
		return evidence.KindNetConnect
	case falcoWrite(r, evt, f):
		return evidence.KindFileWrite
	case credentials.IsPath(ev.Path) || hasAny(r, "sensitive file", "credential", "private key", "ssh information", "shadow"):
		return evidence.KindCredAccess
	case hasAny(r, "shell", "spawn", "process", "launch", "exec", "run "):
		return evidence.KindProcExec
	case ev.Path != "":
		return evidence.KindFileOpen
	}
	return evidence.KindAlert
}

func falcoWrite(rule, evt string, f map[string]parse.Flex) bool {
	if f["evt.is_open_write"].String() == "true" || hasAny(evt, "write", "rename", "unlink", "truncate", "mkdir", "chmod") {
		return true
	}
	if flags := f["evt.arg.flags"].String(); hasAny(flags, "O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC") {
		return true
	}
	return hasAny(rule, "write", "modif", "creat", "delete", "remov", "rename", "clear log")
}

func hasAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// falcoMessage is the rule and the facts a responder scans for: what ran,
// what it touched, where.
func falcoMessage(a *falcoAlert, ev *evidence.Event, audit bool) string {
	f := a.OutputFields
	rule := a.Rule + ":"
	switch ev.Kind {
	case evidence.KindSensorStats:
		return parse.Message(rule, parse.Labelled("falco", f["falco.version"].String()), parse.Labelled("events", f["falco.num_evts"].String()),
			parse.Labelled("dropped", percent(f["scap.n_drops_perc"].String())), parse.Labelled("output drops", f["falco.outputs_queue_num_drops"].String()))
	case evidence.KindSensorGap:
		return parse.Message(rule, parse.Labelled("drops", f["n_drops"].String()), parse.Labelled("events", f["n_evts"].String()))
	}
	if audit {
		target := parse.PodName(f["ka.target.namespace"].String(), f["ka.target.name"].String())
		if ev.URL != "" {
			target = ev.URL // the URI names the target and more
		}
		resource := strings.Trim(f["ka.target.resource"].String()+"/"+f["ka.target.subresource"].String(), "/")
		return parse.Message(rule, ev.User, ev.Method, resource, target,
			parse.Labelled("command", f["ka.uri.param[command]"].String()), parse.Labelled("->", ev.Status))
	}
	what := parse.FirstOf(ev.Cmdline, f["proc.name"].String())
	object := ev.Path
	if ev.DstIP != "" {
		object = parse.NetTuple(ev)
	}
	if object != "" && what != "" {
		object += " by"
	}
	where := parse.Labelled("in", parse.FirstOf(f["container.name"].String(), ev.Container))
	if ev.Pod != "" {
		where += " (k8s " + ev.Pod + ")"
	}
	if object == "" && what == "" {
		return parse.Message(rule, falcoOutputText(a), where)
	}
	return parse.Message(rule, object, what, where)
}

// falcoOutputText is the rule output without Falco's "time: Priority" prefix.
func falcoOutputText(a *falcoAlert) string {
	if a.Message != "" {
		return a.Message
	}
	out := a.Output
	if ts, rest, ok := strings.Cut(out, ": "); ok && len(ts) > 0 && ts[0] >= '0' && ts[0] <= '9' {
		out = strings.TrimPrefix(rest, a.Priority+" ")
	}
	return out
}

func percent(v string) string {
	if v == "" {
		return ""
	}
	return v + "%"
}
