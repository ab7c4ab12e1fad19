package fleet

import (
	"fmt"
	"strings"
)

// Subjects. A normalized event goes to cordon.events.<source>.<format>; a
// record a sensor publishes itself (Falcosidekick's NATS output, a Vector
// NATS sink) goes to cordon.raw.<format>[.<anything>], and the reader parses
// it with that format's parser.
const (
	EventsPrefix = "cordon.events"
	RawPrefix    = "cordon.raw"
	// EventsSubjects and RawSubjects are the wildcards that cover them.
	EventsSubjects = EventsPrefix + ".>"
	RawSubjects    = RawPrefix + ".>"
)

// Token makes s one subject token: NATS splits subjects at '.', gives '*'
// and '>' meaning, and ends them at whitespace, and evidence-derived names
// may hold any of those. Every byte outside [A-Za-z0-9_-] becomes %XX
// (upper-case hex), so the mapping is one to one and Untoken reverses it;
// the empty string becomes "_".
func Token(s string) string {
	switch s {
	case "":
		return "_"
	case "_":
		return "%5F" // "_" alone stands for the empty string
	}
	clean := true
	for i := 0; i < len(s); i++ {
		clean = clean && tokenByte(s[i])
	}
	if clean {
		return s
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		if c := s[i]; tokenByte(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		}
	}
	return b.String()
}

// Untoken reverses Token; it fails on a token Token could not have made.
func Untoken(t string) (string, error) {
	switch t {
	case "_":
		return "", nil
	case "":
		return "", fmt.Errorf("empty subject token")
	}
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		if tokenByte(c) {
			b.WriteByte(c)
			continue
		}
		if c != '%' {
			return "", fmt.Errorf("subject token %q: byte %q is not escaped", t, c)
		}
		if i+2 >= len(t) {
			return "", fmt.Errorf("subject token %q: escape cut short at byte %d", t, i)
		}
		hi, lo := unhex(t[i+1]), unhex(t[i+2])
		if hi < 0 || lo < 0 {
			return "", fmt.Errorf("subject token %q: bad escape at byte %d", t, i)
		}
		v := byte(hi<<4 | lo)
		if tokenByte(v) && t != "%5F" {
			return "", fmt.Errorf("subject token %q: %q is escaped though it need not be", t, v)
		}
		b.WriteByte(v)
		i += 2
	}
	return b.String(), nil
}

// unhex is the value of an upper-case hex digit, -1 for anything else:
// Token writes upper case only, so each string has one token.
func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// EventSubject is where a normalized event of source and format goes.
func EventSubject(source, format string) string {
	return EventsPrefix + "." + Token(source) + "." + Token(format)
}

// isEventSubject is EventSubject(source, format) == subject, without
// making the subject: a reader checks it for every message.
func isEventSubject(subject, source, format string) bool {
	rest, ok := strings.CutPrefix(subject, EventsPrefix+".")
	if !ok {
		return false
	}
	if rest, ok = strings.CutPrefix(rest, Token(source)); !ok {
		return false
	}
	if rest, ok = strings.CutPrefix(rest, "."); !ok {
		return false
	}
	return rest == Token(format)
}

// RawSubject is where a sensor publishes its own records of format.
func RawSubject(format string) string {
	return RawPrefix + "." + Token(format)
}

// Route is a subject filter whose messages are raw records of one format:
// for publishers whose subject cannot be chosen, such as Falcosidekick's
// NATS output, which publishes to falco.<priority>.<rule>.
type Route struct {
	Subject string // a subject filter, wildcards allowed ("falco.>")
	Format  string // a format of cordon formats ("falco")
}

// ParseRoute reads SUBJECT=FORMAT.
func ParseRoute(s string) (Route, error) {
	subj, format, ok := strings.Cut(s, "=")
	if !ok || subj == "" || format == "" {
		return Route{}, fmt.Errorf("raw route %q: want SUBJECT=FORMAT, e.g. falco.>=falco", s)
	}
	if strings.ContainsAny(subj, " \t\r\n") {
		return Route{}, fmt.Errorf("raw route %q: a subject holds no whitespace", s)
	}
	return Route{Subject: subj, Format: format}, nil
}

// subjectMatches reports whether subject falls under the filter (NATS
// wildcards: '*' one token, '>' the rest).
func subjectMatches(filter, subject string) bool {
	f := strings.Split(filter, ".")
	s := strings.Split(subject, ".")
	for i, t := range f {
		if t == ">" {
			return len(s) > i
		}
		if i >= len(s) || t != "*" && t != s[i] {
			return false
		}
	}
	return len(f) == len(s)
}
