package playbook

import (
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/cordon-ir/cordon/evidence"
)

// text reads a string that may hold {{variables}} and checks them.
func (l *linter) text(v *yaml.Node, field string) string {
	s := l.str(v, field)
	l.templates(v, s, field)
	return s
}

// templates reports unknown variables and stray braces, at the line they
// are on when the scalar is a literal block.
func (l *linter) templates(v *yaml.Node, s, field string) {
	for _, m := range placeholder.FindAllStringSubmatchIndex(s, -1) {
		name := s[m[2]:m[3]]
		if !IsVariable(name) {
			l.atOffset(v, s, m[0], "%s: unknown variable {{%s}} (want %s)", field, name, strings.Join(Variables(), ", "))
		}
	}
	rest := placeholder.ReplaceAllString(s, "")
	if i := strings.Index(rest, "{{"); i >= 0 {
		l.atOffset(v, s, strings.Index(s, rest[i:]), "%s: {{ without }}: write a variable as {{name}}", field)
	} else if strings.Contains(rest, "}}") {
		l.at(v, "%s: }} without {{: write a variable as {{name}}", field)
	}
}

// atOffset reports a problem at the line of byte i of a scalar's value:
// exact for a literal block (|), the scalar's own line otherwise.
func (l *linter) atOffset(v *yaml.Node, s string, i int, format string, a ...any) {
	at := *v
	if v.Style&yaml.LiteralStyle != 0 && i >= 0 {
		at.Line = v.Line + 1 + strings.Count(s[:i], "\n")
	}
	l.at(&at, format, a...)
}

// query reads a query template and checks that it renders to a valid
// query, with its variables placed where a quoted value means the value.
func (l *linter) query(v *yaml.Node, field string) string {
	q := l.str(v, field)
	if strings.TrimSpace(q) == "" {
		if v.Kind == yaml.ScalarNode {
			l.at(v, "%s is empty", field)
		}
		return q
	}
	l.templates(v, q, field)
	ok := true
	for _, m := range placeholder.FindAllStringSubmatchIndex(q, -1) {
		if msg := placement(q, m[0], m[1], q[m[2]:m[3]]); msg != "" {
			l.at(v, "%s %q: %s", field, q, msg)
			ok = false
		}
	}
	if !ok {
		return q
	}
	rendered, err := Expand(q, placeholderVars(q))
	if err == nil {
		err = evidence.ValidateQuery(rendered[0])
	}
	if err != nil {
		l.at(v, "%s %q: %s", field, q, strings.TrimPrefix(err.Error(), evidence.ErrQuery.Error()+": "))
	}
	return q
}

// before is what may precede a variable in a query: a field name and
// colon, optionally a sign before it and a range operator after it.
var before = regexp.MustCompile(`(?:^|[\s+-])([A-Za-z_][A-Za-z0-9_.]*):(>=|<=|>|<)?$`)

// placement explains why a variable at q[start:end] cannot stand there, or
// returns "". A value is rendered as a quoted phrase: that is the whole
// value on an exact-match field, but finds nothing on a text field (the
// index keeps no positions) and breaks inside quotes or a longer token.
func placement(q string, start, end int, name string) string {
	if strings.Count(strings.ReplaceAll(q[:start], `\"`, ""), `"`)%2 == 1 {
		return "{{" + name + "}} is inside quotes; write it bare, its values are quoted for you"
	}
	if end < len(q) && !strings.ContainsRune(" \t\n", rune(q[end])) {
		return "{{" + name + "}} must end the value it is part of (field:{{" + name + "}})"
	}
	m := before.FindStringSubmatch(q[:start])
	if m == nil {
		return "{{" + name + "}} must be the whole value of an exact-match field (field:{{" + name + "}})"
	}
	field, op := m[1], m[2]
	switch {
	case field == "time":
		if op == "" || !IsTimeVariable(name) {
			return "on time, write a range with a time variable: time:>={{contained_at}}"
		}
	case op != "":
		return "a range (" + op + ") on " + field + " takes no variable; only time:>={{since}} and the like"
	case IsTimeVariable(name):
		return "{{" + name + "}} is a time: use it as time:>={{" + name + "}} or as a check's after"
	case !evidence.KeywordField(field):
		return "{{" + name + "}} on " + field + ": a quoted value finds nothing on a text or unknown field; use an exact-match field such as agent, session, container, src_ip, user, credential"
	}
	return ""
}

// placeholderVars gives each variable of a template a harmless value of
// its type, to render it for validation.
func placeholderVars(tmpl string) Vars {
	v := Vars{}
	for _, n := range Names(tmpl) {
		if IsTimeVariable(n) {
			v[n] = []string{"2026-01-02T03:04:05.123456789Z"}
		} else {
			v[n] = []string{"placeholder"}
		}
	}
	return v
}
