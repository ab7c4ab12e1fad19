package sigma

import (
	"errors"
	"fmt"

	"gopkg.in/yaml.v3"
)

// ErrRefused marks a Sigma rule, or a pipeline, that cordon cannot run as
// written; the Refusal it wraps says where and why.
var ErrRefused = errors.New("sigma: refused")

// Refusal is one rule (or pipeline) cordon will not run, at the place in
// its file that made it so.
type Refusal struct {
	File      string
	Line, Col int
	// Rule is the rule's title or id, when it was read that far.
	Rule   string
	Reason string
}

// Error renders file:line:col: reason.
func (r *Refusal) Error() string {
	where := fmt.Sprintf("%s:%d:%d", r.File, r.Line, r.Col)
	if r.Rule != "" {
		return fmt.Sprintf("%s: rule %q: %s", where, r.Rule, r.Reason)
	}
	return where + ": " + r.Reason
}

// Unwrap makes errors.Is(err, ErrRefused) hold.
func (r *Refusal) Unwrap() error { return ErrRefused }

// refuser makes refusals in one file.
type refuser struct {
	file string
	rule string
}

func (f *refuser) at(n *yaml.Node, format string, a ...any) *Refusal {
	r := &Refusal{File: f.file, Rule: f.rule, Reason: fmt.Sprintf(format, a...)}
	if n != nil {
		r.Line, r.Col = n.Line, n.Column
	}
	return r
}
