package parse

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// MaxMessage bounds an event's message: the raw record keeps everything,
// the message is one readable line.
const MaxMessage = 512

// Message joins non-empty parts with spaces into one line, cut at MaxMessage.
// Control characters are not removed here: raw evidence stays as written and
// every view sanitizes on output.
func Message(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" || p == "-" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	s := b.String()
	if len(s) > MaxMessage {
		cut := MaxMessage
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// CutText cuts s to at most n bytes on a UTF-8 boundary, marking the cut.
func CutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// OneLine folds whitespace runs, newlines included, to single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Labelled is "label v", or "" without a value, for optional parts of a
// message.
func Labelled(label, v string) string {
	if v == "" {
		return ""
	}
	return label + " " + v
}

// FirstOf returns the first non-empty value.
func FirstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// OrNone is s, or "missing" for an empty field a message must show.
func OrNone(s string) string {
	if s == "" {
		return "missing"
	}
	return s
}

// ShortDigest is the first 12 hex digits of a (sha256:) digest, as
// messages show digests.
func ShortDigest(digest string) string {
	digest = strings.TrimPrefix(digest, "sha256:")
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}

// ArgsText renders tool arguments as one line of key=value pairs in key order.
func ArgsText(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if Unmarshal(raw, &m) != nil {
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
		if Unmarshal(v, &s) != nil {
			s = string(v)
		}
		parts = append(parts, k+"="+s)
	}
	return strings.Join(parts, " ")
}

// ArgString returns the first string argument found under one of keys.
func ArgString(raw json.RawMessage, keys ...string) string {
	var m map[string]json.RawMessage
	if Unmarshal(raw, &m) != nil {
		return ""
	}
	for _, k := range keys {
		var s string
		if v, ok := m[k]; ok && Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// ToolArgs takes a command line, a path and a URL from tool arguments.
func ToolArgs(ev *evidence.Event, args json.RawMessage) {
	ev.Cmdline = ArgString(args, "cmd", "command", "code")
	ev.Path = ArgString(args, "path", "file", "filename", "file_path")
	ev.URL = ArgString(args, "url", "uri")
}
