package detect

import (
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// fieldKind is how the index maps a field, and so how a query on it
// matches (evidence/mapping.go): keywords whole and exact, text by token.
type fieldKind int

const (
	kwField   fieldKind = iota // one exact value
	listField                  // several exact values
	intField                   // a number indexed as its decimal keyword
	textField                  // analysed: unicode tokens, lowercased
	numField                   // numeric (range queries)
	timeField                  // datetime (range queries)
)

// maxAllRaw mirrors the index: only the first 8 KiB of raw feed the
// catch-all field.
const maxAllRaw = 8 << 10

// field reads one indexed field of an event.
type field struct {
	name  string
	kind  fieldKind
	str   func(*evidence.Event) string
	list  func(*evidence.Event) []string
	num   func(*evidence.Event) int64
	parts func(*evidence.Event) [6]string // text: the strings analysed
}

// lookupField returns the field a query names; "" is the catch-all field
// a bare word searches. It mirrors the Bleve mapping, which the parity
// test in match_test.go holds it to.
func lookupField(name string) (field, bool) {
	kw := func(f func(*evidence.Event) string) (field, bool) {
		return field{name: name, kind: kwField, str: f}, true
	}
	list := func(f func(*evidence.Event) []string) (field, bool) {
		return field{name: name, kind: listField, list: f}, true
	}
	num := func(k fieldKind, f func(*evidence.Event) int64) (field, bool) {
		return field{name: name, kind: k, num: f}, true
	}
	text := func(f func(*evidence.Event) [6]string) (field, bool) {
		return field{name: name, kind: textField, parts: f}, true
	}
	switch name {
	case "id":
		return kw(func(e *evidence.Event) string { return e.ID })
	case "source":
		return kw(func(e *evidence.Event) string { return e.Source })
	case "format":
		return kw(func(e *evidence.Event) string { return e.Format })
	case "kind":
		return kw(func(e *evidence.Event) string { return e.Kind })
	case "agent":
		return kw(func(e *evidence.Event) string { return e.Agent })
	case "attributed_via":
		return kw(func(e *evidence.Event) string { return e.AttributedVia })
	case "run":
		return kw(func(e *evidence.Event) string { return e.Run })
	case "session":
		return kw(func(e *evidence.Event) string { return e.Session })
	case "sandbox":
		return kw(func(e *evidence.Event) string { return e.Sandbox })
	case "model":
		return kw(func(e *evidence.Event) string { return e.Model })
	case "objective":
		return kw(func(e *evidence.Event) string { return e.Objective })
	case "tool":
		return kw(func(e *evidence.Event) string { return e.Tool })
	case "decision":
		return kw(func(e *evidence.Event) string { return e.Decision })
	case "policy":
		return kw(func(e *evidence.Event) string { return e.Policy })
	case "severity":
		return kw(func(e *evidence.Event) string { return e.Severity })
	case "src_ip":
		return kw(func(e *evidence.Event) string { return e.SrcIP })
	case "dst_host":
		// the index keeps host names lowercased
		return kw(func(e *evidence.Event) string { return lowerASCII(e.DstHost) })
	case "dst_ip":
		return kw(func(e *evidence.Event) string { return e.DstIP })
	case "method":
		return kw(func(e *evidence.Event) string { return e.Method })
	case "status":
		return kw(func(e *evidence.Event) string { return e.Status })
	case "user":
		return kw(func(e *evidence.Event) string { return e.User })
	case "host":
		return kw(func(e *evidence.Event) string { return e.Host })
	case "call_id":
		return kw(func(e *evidence.Event) string { return e.CallID })
	case "exec_id":
		return kw(func(e *evidence.Event) string { return e.ExecID })
	case "parent_exec_id":
		return kw(func(e *evidence.Event) string { return e.ParentExecID })
	case "trace_id":
		return kw(func(e *evidence.Event) string { return e.TraceID })
	case "span_id":
		return kw(func(e *evidence.Event) string { return e.SpanID })
	case "container":
		return kw(func(e *evidence.Event) string { return e.Container })
	case "pod":
		return kw(func(e *evidence.Event) string { return e.Pod })
	case "tags":
		return list(func(e *evidence.Event) []string { return e.Tags })
	case "credential":
		return list(func(e *evidence.Event) []string { return e.Credential })
	case "tools_allowed":
		return list(func(e *evidence.Event) []string { return e.ToolsAllowed })
	case "egress_allowlist":
		return list(func(e *evidence.Event) []string { return e.EgressAllowlist })
	case "src_port":
		return num(intField, func(e *evidence.Event) int64 { return int64(e.SrcPort) })
	case "dst_port":
		return num(intField, func(e *evidence.Event) int64 { return int64(e.DstPort) })
	case "pid":
		return num(intField, func(e *evidence.Event) int64 { return int64(e.Pid) })
	case "ppid":
		return num(intField, func(e *evidence.Event) int64 { return int64(e.Ppid) })
	case "bytes_out":
		return num(numField, func(e *evidence.Event) int64 { return e.BytesOut })
	case "bytes_in":
		return num(numField, func(e *evidence.Event) int64 { return e.BytesIn })
	case "time":
		return field{name: name, kind: timeField}, true
	case "message":
		return text(func(e *evidence.Event) [6]string { return [6]string{e.Message} })
	case "cmdline":
		return text(func(e *evidence.Event) [6]string { return [6]string{e.Cmdline} })
	case "url":
		return text(func(e *evidence.Event) [6]string { return [6]string{e.URL} })
	case "path":
		return text(func(e *evidence.Event) [6]string { return [6]string{e.Path} })
	case "", "_all":
		return text(func(e *evidence.Event) [6]string {
			raw := e.Raw
			if len(raw) > maxAllRaw {
				raw = raw[:maxAllRaw]
			}
			return [6]string{e.Message, e.Cmdline, e.URL, e.Path, e.DstHost, evidence.RawText(raw)}
		})
	}
	return field{}, false
}

// values returns the exact values of a keyword-like field, for grouping
// and distinct counts; nil when the event has none.
func (f field) values(ev *evidence.Event) []string {
	switch f.kind {
	case kwField:
		if v := f.str(ev); v != "" {
			return []string{v}
		}
	case listField:
		return f.list(ev)
	case intField, numField:
		if n := f.num(ev); n != 0 {
			return []string{strconv.FormatInt(n, 10)}
		}
	case textField:
		if v := strings.TrimSpace(f.parts(ev)[0]); v != "" {
			return []string{v}
		}
	}
	return nil
}

// lowerASCII lowercases without allocating when there is nothing to do.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}
