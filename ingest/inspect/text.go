package inspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// decodeText decodes a string, number or null at dec into dst.
func decodeText(dec *json.Decoder, dst *string) error {
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return err
	}
	*dst = scalarText(v)
	return nil
}

// scalarText is a JSON string's value, a number's digits, "" for null.
func scalarText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	var s string
	if v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// inputText is a sample's input: a string, or the first user message of a
// list of messages.
func inputText(v json.RawMessage) string {
	if s := scalarText(v); len(v) == 0 || v[0] != '[' {
		return s
	}
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(v, &msgs) != nil {
		return ""
	}
	for _, m := range msgs {
		if m.Role == "user" {
			return contentText(m.Content)
		}
	}
	return ""
}

// contentText is the text of message content: a string, or the text parts
// of a list of content parts.
func contentText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] != '[' {
		return scalarText(v)
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(v, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, " ")
}

// inspectTime parses Inspect's ISO times (with their local offset) as UTC.
func inspectTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("no timestamp")
	}
	if t, err := parse.RFC3339(s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("bad time %q", s)
}

const attachPrefix = "attachment://"

// eachRef calls fn for every attachment://<hash> reference in s.
func eachRef(s string, fn func(start, end int, hash string)) {
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], attachPrefix)
		if j < 0 {
			return
		}
		start := i + j
		h := start + len(attachPrefix)
		end := h
		for end < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[end]) >= 0 {
			end++
		}
		if end > h {
			fn(start, end, s[h:end])
		}
		i = max(end, h)
	}
}

func (s *inspectSample) noteRefs(text string) {
	eachRef(text, func(_, _ int, hash string) { s.need[hash] = true })
}

// resolveText replaces the attachment references of text with what they
// stand for, when the sample carries it.
func (s *inspectSample) resolveText(text string) string {
	if !strings.Contains(text, attachPrefix) {
		return text
	}
	var b strings.Builder
	last := 0
	eachRef(text, func(start, end int, hash string) {
		if v, ok := s.attach[hash]; ok {
			b.WriteString(text[last:start])
			b.WriteString(v)
			last = end
		}
	})
	b.WriteString(text[last:])
	return b.String()
}

// resolve fills an event's indexed text with the attachments it refers to.
func (s *inspectSample) resolve(ev *evidence.Event) {
	if strings.Contains(ev.Message, attachPrefix) {
		ev.Message = parse.Message(s.resolveText(ev.Message))
	}
	ev.Cmdline = parse.CutText(s.resolveText(ev.Cmdline), maxAttachment)
	ev.Path = parse.CutText(s.resolveText(ev.Path), maxAttachment)
	ev.URL = parse.CutText(s.resolveText(ev.URL), maxAttachment)
}

// bind puts on a session_start the sandbox, container, pod, host and IP the
// sample's metadata or the sandbox config name, as a ledger session_start
// carries them, so that attribution can tie proxy and sensor events to it.
func (s *inspectSample) bind(ev *evidence.Event) {
	maps := []map[string]any{s.meta, metaMap(s.meta, "sandbox"), s.sandbox.configMap(), s.h.Eval.Sandbox.configMap()}
	for _, m := range maps {
		ev.Sandbox = parse.FirstOf(ev.Sandbox, metaString(m, "sandbox_id", "sandbox"))
		ev.Container = parse.FirstOf(ev.Container, parse.ContainerID(metaString(m, "container_id", "container", "container_name")))
		ev.Pod = parse.FirstOf(ev.Pod, parse.PodName(metaString(m, "namespace", "pod_namespace"), metaString(m, "pod", "pod_name")))
		ev.Host = parse.FirstOf(ev.Host, metaString(m, "host", "hostname", "node", "node_name"))
		if ip := metaString(m, "ip", "src_ip", "ip_address", "sandbox_ip", "pod_ip"); ev.SrcIP == "" && parse.IsIP(ip) {
			ev.SrcIP = ip
		}
	}
	ev.Sandbox = parse.FirstOf(ev.Sandbox, s.sandbox.name(), s.h.Eval.Sandbox.name())
}

// name is "type:config" for a config file, else the type.
func (sb *inspectSandbox) name() string {
	if sb == nil {
		return ""
	}
	if c := scalarText(sb.Config); c != "" && sb.Config[0] == '"' {
		return sb.Type + ":" + c
	}
	return sb.Type
}

func (sb *inspectSandbox) configMap() map[string]any {
	if sb == nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(sb.Config, &m) != nil {
		return nil
	}
	return m
}

func metaMap(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

// metaString is the first of keys whose value is a string or a number.
func metaString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case json.Number:
			return v.String()
		}
	}
	return ""
}

func headLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
