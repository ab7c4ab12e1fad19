package evidence

import (
	"strconv"
	"strings"
)

// fieldKind is how the index maps a field, and so how a query on it
// matches (mapping.go): keywords whole and exact, text by token.
type fieldKind int

const (
	kwField   fieldKind = iota // one exact value
	listField                  // several exact values
	intField                   // a number indexed as its decimal keyword
	textField                  // analysed: unicode tokens, lowercased
	numField                   // numeric (range queries)
	timeField                  // datetime (range queries)
)

// Field reads one indexed field of an event as the index maps it, for the
// in-memory Matcher and for correlations that group or count events by a
// field. (Not to be confused with field, a field of an indexed document.)
type Field struct {
	name  string
	kind  fieldKind
	str   func(*Event) string
	list  func(*Event) []string
	num   func(*Event) int64
	parts func(*Event) [6]string // text: the strings analysed
}

// LookupField returns the field a query names; "" is the catch-all field
// a bare word searches. It mirrors the Bleve mapping, which the parity
// test in match_test.go holds it to.
func LookupField(name string) (Field, bool) {
	kw := func(f func(*Event) string) (Field, bool) {
		return Field{name: name, kind: kwField, str: f}, true
	}
	list := func(f func(*Event) []string) (Field, bool) {
		return Field{name: name, kind: listField, list: f}, true
	}
	num := func(k fieldKind, f func(*Event) int64) (Field, bool) {
		return Field{name: name, kind: k, num: f}, true
	}
	text := func(f func(*Event) [6]string) (Field, bool) {
		return Field{name: name, kind: textField, parts: f}, true
	}
	switch name {
	case "id":
		return kw(func(e *Event) string { return e.ID })
	case "source":
		return kw(func(e *Event) string { return e.Source })
	case "format":
		return kw(func(e *Event) string { return e.Format })
	case "kind":
		return kw(func(e *Event) string { return e.Kind })
	case "agent":
		return kw(func(e *Event) string { return e.Agent })
	case "attributed_via":
		return kw(func(e *Event) string { return e.AttributedVia })
	case "run":
		return kw(func(e *Event) string { return e.Run })
	case "session":
		return kw(func(e *Event) string { return e.Session })
	case "sandbox":
		return kw(func(e *Event) string { return e.Sandbox })
	case "model":
		return kw(func(e *Event) string { return e.Model })
	case "objective":
		return kw(func(e *Event) string { return e.Objective })
	case "tool":
		return kw(func(e *Event) string { return e.Tool })
	case "decision":
		return kw(func(e *Event) string { return e.Decision })
	case "policy":
		return kw(func(e *Event) string { return e.Policy })
	case "severity":
		return kw(func(e *Event) string { return e.Severity })
	case "src_ip":
		return kw(func(e *Event) string { return e.SrcIP })
	case "dst_host":
		// the index keeps host names lowercased
		return kw(func(e *Event) string { return lowerASCII(e.DstHost) })
	case "dst_ip":
		return kw(func(e *Event) string { return e.DstIP })
	case "method":
		return kw(func(e *Event) string { return e.Method })
	case "status":
		return kw(func(e *Event) string { return e.Status })
	case "user":
		return kw(func(e *Event) string { return e.User })
	case "host":
		return kw(func(e *Event) string { return e.Host })
	case "user_agent":
		return kw(func(e *Event) string { return e.UserAgent })
	case "parent_exe":
		return kw(func(e *Event) string { return e.ParentExe })
	case "parent_cmdline":
		return kw(func(e *Event) string { return e.ParentCmdline })
	case "cwd":
		return kw(func(e *Event) string { return e.Cwd })
	case "call_id":
		return kw(func(e *Event) string { return e.CallID })
	case "exec_id":
		return kw(func(e *Event) string { return e.ExecID })
	case "parent_exec_id":
		return kw(func(e *Event) string { return e.ParentExecID })
	case "trace_id":
		return kw(func(e *Event) string { return e.TraceID })
	case "span_id":
		return kw(func(e *Event) string { return e.SpanID })
	case "container":
		return kw(func(e *Event) string { return e.Container })
	case "pod":
		return kw(func(e *Event) string { return e.Pod })
	case "tags":
		return list(func(e *Event) []string { return e.Tags })
	case "credential":
		return list(func(e *Event) []string { return e.Credential })
	case "tools_allowed":
		return list(func(e *Event) []string { return e.ToolsAllowed })
	case "egress_allowlist":
		return list(func(e *Event) []string { return e.EgressAllowlist })
	case "cut":
		return list(func(e *Event) []string { return e.Cut })
	case "src_port":
		return num(intField, func(e *Event) int64 { return int64(e.SrcPort) })
	case "dst_port":
		return num(intField, func(e *Event) int64 { return int64(e.DstPort) })
	case "pid":
		return num(intField, func(e *Event) int64 { return int64(e.Pid) })
	case "ppid":
		return num(intField, func(e *Event) int64 { return int64(e.Ppid) })
	case "bytes_out":
		return num(numField, func(e *Event) int64 { return e.BytesOut })
	case "bytes_in":
		return num(numField, func(e *Event) int64 { return e.BytesIn })
	case "duration_ms":
		return num(numField, func(e *Event) int64 { return e.DurationMS })
	case "time":
		return Field{name: name, kind: timeField}, true
	case "message":
		return text(func(e *Event) [6]string { return [6]string{e.Message} })
	case "cmdline":
		return text(func(e *Event) [6]string { return [6]string{e.Cmdline} })
	case "url":
		return text(func(e *Event) [6]string { return [6]string{e.URL} })
	case "path":
		return text(func(e *Event) [6]string { return [6]string{e.Path} })
	case "", "_all":
		return text(func(e *Event) [6]string {
			raw := e.Raw
			if len(raw) > maxAllRaw {
				raw = raw[:maxAllRaw]
			}
			return [6]string{e.Message, e.Cmdline, e.URL, e.Path, e.DstHost, RawText(raw)}
		})
	}
	return Field{}, false
}

// Groupable reports a field events can be grouped by: one with exact
// values, not analysed text or time.
func (f Field) Groupable() bool { return f.kind != textField && f.kind != timeField }

// Countable reports a field whose distinct values can be counted: any but
// time.
func (f Field) Countable() bool { return f.kind != timeField }

// Key is the value an event is grouped by ("" leaves it out): a keyword
// field's value, else the first of Values.
func (f Field) Key(ev *Event) string {
	if f.kind == kwField {
		return f.str(ev)
	}
	if vs := f.Values(ev); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// One is the value of a keyword or text field without allocating (""
// for none; a text field's whole text, trimmed, as Values gives it); ok
// is false for the other kinds, whose values Values gives.
func (f Field) One(ev *Event) (v string, ok bool) {
	switch f.kind {
	case kwField:
		return f.str(ev), true
	case textField:
		return strings.TrimSpace(f.parts(ev)[0]), true
	}
	return "", false
}

// Values returns the exact values of a keyword-like field, for grouping
// and distinct counts; nil when the event has none.
func (f Field) Values(ev *Event) []string {
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
	if isLowerASCII(s) {
		return s
	}
	return strings.ToLower(s)
}
