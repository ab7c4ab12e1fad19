package playbook

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// The template variables a playbook may use as {{name}}. Each may hold
// several values: an incident can involve several agents, sessions and
// credentials.
const (
	VarAgent       = "agent"        // agent identity (agent:)
	VarSession     = "session"      // agent session id (session:)
	VarRun         = "run"          // evaluation run (run:)
	VarModel       = "model"        // model version (model:)
	VarSandbox     = "sandbox"      // sandbox id (sandbox:)
	VarIP          = "ip"           // the sandbox's source IP (src_ip:)
	VarContainer   = "container"    // container id (container:)
	VarPod         = "pod"          // pod name (pod:)
	VarCredential  = "credential"   // a credential issued to the session (credential:)
	VarSince       = "since"        // start of the incident window, RFC 3339
	VarUntil       = "until"        // end of the incident window, RFC 3339
	VarContainedAt = "contained_at" // when the agent was stopped, RFC 3339
)

// Variables lists every template variable, in the order documented.
func Variables() []string {
	return []string{
		VarAgent, VarSession, VarRun, VarModel, VarSandbox, VarIP, VarContainer,
		VarPod, VarCredential, VarSince, VarUntil, VarContainedAt,
	}
}

// TimeVariables lists the variables that hold times: the ones a check's
// after and a step's sets may name.
func TimeVariables() []string { return []string{VarSince, VarUntil, VarContainedAt} }

// IsVariable reports a known template variable.
func IsVariable(name string) bool { return contains(Variables(), name) }

// IsTimeVariable reports a variable that holds a time.
func IsTimeVariable(name string) bool { return contains(TimeVariables(), name) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ErrMissingVar marks a template that names a variable with no value.
var ErrMissingVar = errors.New("missing template variable")

// MissingVarError names the variables a template needs and has no value
// for.
type MissingVarError struct {
	Names []string
}

// Error lists the missing variables.
func (e *MissingVarError) Error() string {
	names := make([]string, len(e.Names))
	for i, n := range e.Names {
		names[i] = "{{" + n + "}}"
	}
	return fmt.Sprintf("no value for %s", strings.Join(names, ", "))
}

// Unwrap makes errors.Is(err, ErrMissingVar) hold.
func (e *MissingVarError) Unwrap() error { return ErrMissingVar }

// Vars holds the values of the template variables of one incident.
type Vars map[string][]string

// Set replaces the values of a variable; empty values are dropped.
func (v Vars) Set(name string, values ...string) {
	var keep []string
	for _, s := range values {
		if s != "" && !contains(keep, s) {
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 {
		delete(v, name)
		return
	}
	v[name] = keep
}

// SetTime sets a time variable to t, in UTC with its sub-second digits.
func (v Vars) SetTime(name string, t time.Time) {
	v.Set(name, FormatTime(t))
}

// Time reads a time variable; ok is false when it has no value or does not
// parse. With several values the earliest counts.
func (v Vars) Time(name string) (t time.Time, ok bool) {
	for _, s := range v[name] {
		x, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			continue
		}
		if !ok || x.Before(t) {
			t, ok = x, true
		}
	}
	return t, ok
}

// Clone returns a copy that can be changed independently.
func (v Vars) Clone() Vars {
	c := make(Vars, len(v))
	for k, vals := range v {
		c[k] = append([]string(nil), vals...)
	}
	return c
}

// FormatTime renders a time the way time variables hold it.
func FormatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// placeholder matches {{name}}, spaces allowed inside the braces.
var placeholder = regexp.MustCompile(`\{\{\s*([^{}\s]*)\s*\}\}`)

// Names lists the variables a template uses, each once, in order of first
// use.
func Names(tmpl string) []string {
	var names []string
	for _, m := range placeholder.FindAllStringSubmatch(tmpl, -1) {
		if !contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	return names
}

// Expand renders a query template once for every combination of the values
// of the variables it uses (the cartesian product), so that a check over
// two sessions and three credentials runs every pairing. Each value is
// written as a quoted Bleve phrase with \ and " escaped: a value comes from
// the evidence, which the agent under investigation wrote, and must never
// add query syntax. A template without variables gives itself. A variable
// with no value is an error wrapping ErrMissingVar that names every such
// variable.
func Expand(tmpl string, v Vars) ([]string, error) {
	names := Names(tmpl)
	if err := missing(names, v); err != nil {
		return nil, err
	}
	// Substitute every variable of a combination in one pass: a value that
	// itself reads {{session}} must stay text, not be expanded again.
	var out []string
	pick := make(map[string]string, len(names))
	var fan func(i int)
	fan = func(i int) {
		if i == len(names) {
			out = append(out, placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
				return Quote(pick[placeholder.FindStringSubmatch(m)[1]])
			}))
			return
		}
		for _, val := range v[names[i]] {
			pick[names[i]] = val
			fan(i + 1)
		}
	}
	fan(0)
	return out, nil
}

// ExpandAll expands every template of a list and concatenates the results,
// dropping repeats: the union a check counts.
func ExpandAll(tmpls []string, v Vars) ([]string, error) {
	var out []string
	var miss []string
	for _, t := range tmpls {
		qs, err := Expand(t, v)
		var me *MissingVarError
		if errors.As(err, &me) {
			for _, n := range me.Names {
				if !contains(miss, n) {
					miss = append(miss, n)
				}
			}
			continue
		}
		for _, q := range qs {
			if !contains(out, q) {
				out = append(out, q)
			}
		}
	}
	if len(miss) > 0 {
		sort.Strings(miss)
		return nil, &MissingVarError{Names: miss}
	}
	return out, nil
}

// ExpandText renders Markdown or checklist text: each variable becomes its
// values as they are, joined with ", ". A variable with no value is left as
// {{name}} in the text, so the responder sees what is still unknown, and
// reported with an error wrapping ErrMissingVar.
func ExpandText(tmpl string, v Vars) (string, error) {
	names := Names(tmpl)
	err := missing(names, v)
	out := placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		if len(v[name]) == 0 {
			return m
		}
		return strings.Join(v[name], ", ")
	})
	return out, err
}

// Quote writes a value as a Bleve quoted phrase that matches the value and
// nothing else. The index's exact-match fields take a quoted value as the
// whole value.
func Quote(val string) string {
	var b strings.Builder
	b.Grow(len(val) + 2)
	b.WriteByte('"')
	// Byte by byte: \ and " are ASCII, and bytes that are not UTF-8 stay
	// as they are, so the phrase is still the value.
	for i := 0; i < len(val); i++ {
		if c := val[i]; c == '\\' || c == '"' {
			b.WriteByte('\\')
		}
		b.WriteByte(val[i])
	}
	b.WriteByte('"')
	return b.String()
}

func missing(names []string, v Vars) error {
	var miss []string
	for _, n := range names {
		if len(v[n]) == 0 {
			miss = append(miss, n)
		}
	}
	if len(miss) == 0 {
		return nil
	}
	return &MissingVarError{Names: miss}
}
