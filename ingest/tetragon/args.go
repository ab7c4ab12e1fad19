package tetragon

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// tgArg is one KprobeArgument: a oneof, so at most one member is set.
type tgArg struct {
	FileArg     *tgFile `json:"file_arg"`
	PathArg     *tgFile `json:"path_arg"`
	BinprmArg   *tgFile `json:"linux_binprm_arg"`
	SockArg     *tgSock `json:"sock_arg"`
	SkbArg      *tgSock `json:"skb_arg"`
	SockaddrArg *struct {
		Addr string     `json:"addr"`
		Port parse.Flex `json:"port"`
	} `json:"sockaddr_arg"`
	IntArg    *parse.Flex `json:"int_arg"`
	StringArg *string     `json:"string_arg"`
}

type tgFile struct {
	Path string `json:"path"`
}

type tgSock struct {
	Protocol string     `json:"protocol"`
	Saddr    string     `json:"saddr"`
	Daddr    string     `json:"daddr"`
	Sport    parse.Flex `json:"sport"`
	Dport    parse.Flex `json:"dport"`
}

// Linux MAY_* bits of security_file_permission's mask, and open(2) flags.
const (
	mayWrite  = 2
	mayAppend = 8
	oWrite    = 0o1 | 0o2 | 0o100 | 0o1000 // O_WRONLY, O_RDWR, O_CREAT, O_TRUNC
)

// tetragonDispatch sets the kind and message for the event key.
func tetragonDispatch(key string, e *tgEvent, ev *evidence.Event, num *parse.Numbers) {
	ctx := procContext(ev)
	switch key {
	case "process_exec":
		ev.Kind = evidence.KindProcExec
		ev.Message = parse.Message("exec", ev.Cmdline, ctx)
	case "process_exit":
		// protobuf-JSON omits zeros: no signal and no status is exit 0.
		ev.Kind = evidence.KindProcExit
		ev.Status = parse.FirstOf(e.Signal, e.Status.String(), "0")
		ev.Message = parse.Message("exit", ev.Cmdline, "status", ev.Status, ctx)
	case "process_kprobe", "process_tracepoint", "process_uprobe", "process_lsm", "process_usdt":
		tetragonHook(e, ev, num)
	case "process_connect", "process_close", "process_accept", "process_listen":
		// Legacy network events of pre-OSS exports (O'Reilly report samples).
		ev.Kind = evidence.KindNetConnect
		if key == "process_listen" {
			ev.Kind = evidence.KindOther
		}
		ev.SrcIP, ev.SrcPort = e.SrcIP, num.Port("source_port", e.SrcPort)
		ev.DstIP, ev.DstPort = e.DstIP, num.Port("destination_port", e.DstPort)
		ev.Message = parse.Message(strings.TrimPrefix(key, "process_"), parse.NetTuple(ev), e.Proto, "by", ev.Cmdline, ctx)
	case "process_throttle":
		ev.Kind, ev.Status = evidence.KindSensorGap, e.Type
		ev.Message = parse.Message("tetragon throttle", e.Type, "cgroup", e.Cgroup)
	case "rate_limit_info":
		ev.Kind = evidence.KindSensorGap
		ev.Message = parse.Message("tetragon rate limit:", parse.FirstOf(e.Dropped.String(), "unknown number of"), "process events dropped")
	case "process_loader":
		ev.Kind, ev.Path = evidence.KindOther, e.Path
		ev.Message = parse.Message("load", e.Path, "by", ev.Cmdline, ctx)
	default:
		ev.Kind = evidence.KindOther
		ev.Message = parse.Message(key, ev.Cmdline, ctx)
	}
}

// tetragonHook classifies a TracingPolicy event (kprobe, tracepoint, uprobe,
// LSM) by its hook and its typed arguments.
func tetragonHook(e *tgEvent, ev *evidence.Event, num *parse.Numbers) {
	hook := parse.FirstOf(e.Function, e.Symbol, strings.Trim(e.Subsys+"/"+e.Event, "/"))
	ev.Policy = e.Policy
	ev.Tags = append(ev.Tags, e.Tags...)
	action := strings.TrimPrefix(tetragonAction(e.Action.String()), "KPROBE_ACTION_")
	if action == "SIGKILL" || action == "OVERRIDE" || action == "NOTIFYENFORCER" {
		ev.Decision = evidence.DecisionDeny
	}
	if action == "POST" || action == "UNKNOWN" {
		action = ""
	}
	name := hookName(hook)
	var file, sock bool
	var mask, flags int64 = -1, -1 // the first int; the first int after a path
	for _, a := range e.Args {
		switch {
		case a.FileArg != nil || a.PathArg != nil || a.BinprmArg != nil:
			f := firstFile(a.FileArg, a.PathArg, a.BinprmArg)
			if ev.Path == "" {
				ev.Path, file = f, true
			}
		case a.SockArg != nil || a.SkbArg != nil:
			s := a.SockArg
			if s == nil {
				s = a.SkbArg
			}
			if !sock {
				ev.SrcIP, ev.SrcPort, ev.DstIP, ev.DstPort = s.Saddr, num.Port("sport", s.Sport), s.Daddr, num.Port("dport", s.Dport)
			}
			sock = true
		case a.SockaddrArg != nil:
			if !sock {
				ev.DstIP, ev.DstPort = a.SockaddrArg.Addr, num.Port("sockaddr_arg.port", a.SockaddrArg.Port)
			}
			sock = true
		case a.IntArg != nil:
			if mask < 0 {
				mask = a.IntArg.Int()
			}
			if flags < 0 && ev.Path != "" {
				flags = a.IntArg.Int()
			}
		case a.StringArg != nil && ev.Path == "" && strings.HasPrefix(*a.StringArg, "/") && strings.Contains(name, "open"):
			ev.Path, file = *a.StringArg, true
		}
	}
	var verb, object string
	switch {
	case isExecHook(name):
		ev.Kind, verb, object = evidence.KindProcExec, "exec", ev.Path
	case sock:
		ev.Kind, verb, object = evidence.KindNetConnect, netVerb(name), parse.NetTuple(ev)
	case file && hookWrites(name, mask, flags):
		ev.Kind, verb, object = evidence.KindFileWrite, "write", ev.Path
	case file && credentials.IsPath(ev.Path):
		ev.Kind, verb, object = evidence.KindCredAccess, "credential access", ev.Path
	case file:
		ev.Kind, verb, object = evidence.KindFileOpen, "open", ev.Path
	default:
		ev.Kind, verb, object = evidence.KindOther, hook, ev.Path
		hook = ""
	}
	by := ""
	if ev.Cmdline != "" {
		by = "by " + ev.Cmdline
	}
	ev.Message = parse.Message(verb, object, by, parse.Labelled("via", hook), parse.Labelled("action", action),
		parse.Labelled("policy", e.Policy), quoted(e.Message), procContext(ev))
}

func firstFile(fs ...*tgFile) string {
	for _, f := range fs {
		if f != nil {
			return f.Path
		}
	}
	return ""
}

// tetragonAction names an action given as its enum number by some clients.
func tetragonAction(a string) string {
	switch a {
	case "3":
		return "KPROBE_ACTION_SIGKILL"
	case "5":
		return "KPROBE_ACTION_OVERRIDE"
	case "13":
		return "KPROBE_ACTION_NOTIFYENFORCER"
	}
	return a
}

// hookName drops the arch prefix of syscall symbols and the security_
// prefix of LSM hooks: __x64_sys_write -> sys_write,
// security_file_permission -> file_permission.
func hookName(fn string) string {
	for _, p := range []string{"__x64_", "__arm64_", "__ia32_", "__se_"} {
		fn = strings.TrimPrefix(fn, p)
	}
	return strings.TrimPrefix(fn, "security_")
}

// isExecHook reports the hooks on the exec path. security_bprm_creds_from_file
// runs inside execve with the binary being executed as its file argument, so
// it is an exec of that file by the calling process.
func isExecHook(name string) bool {
	switch name {
	case "bprm_creds_from_file", "bprm_check", "bprm_check_security", "bprm_committed_creds",
		"bprm_creds_for_exec", "bprm_execve", "sys_execve", "sys_execveat":
		return true
	}
	return false
}

// hookWrites reports a write: a write or truncate hook, a permission mask
// (security_file_permission's int) with MAY_WRITE or MAY_APPEND, or open(2)
// flags that write (open and openat take them right after the path).
func hookWrites(name string, mask, flags int64) bool {
	switch {
	case strings.Contains(name, "write") || strings.Contains(name, "truncate"):
		return true
	case strings.Contains(name, "permission"):
		return mask >= 0 && mask&(mayWrite|mayAppend) != 0
	case strings.HasPrefix(name, "sys_open"):
		return flags >= 0 && flags&oWrite != 0
	}
	return false
}

func netVerb(name string) string {
	for _, v := range []string{"connect", "accept", "close", "send", "recv", "listen", "bind"} {
		if strings.Contains(name, v) {
			return v
		}
	}
	return "socket"
}

func quoted(s string) string {
	if s == "" {
		return ""
	}
	return "\"" + s + "\""
}

// snakeCase turns a camelCase key into snake_case; snake keys are unchanged.
func snakeCase(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r >= 'A' && r <= 'Z' }) < 0 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// snakeKeys rewrites the object keys of a camelCase record to snake_case,
// leaving the keys of label and annotation maps (which are data) alone.
func snakeKeys(data []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(snakeValue(v))
}

func snakeValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			sk := snakeCase(k)
			if strings.HasSuffix(sk, "_labels") || strings.HasSuffix(sk, "_annotations") {
				out[sk] = val
				continue
			}
			out[sk] = snakeValue(val)
		}
		return out
	case []any:
		for i := range x {
			x[i] = snakeValue(x[i])
		}
	}
	return v
}
