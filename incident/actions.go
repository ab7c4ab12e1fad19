package incident

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/playbook"
)

// Errors of running an action that callers act on.
var (
	// ErrNoAction: the step names an action cordon.yaml does not configure.
	ErrNoAction = errors.New("action not configured")
	// ErrNotConfirmed: the typed confirmation does not name the agent.
	ErrNotConfirmed = errors.New("action not confirmed")
)

// maxActionOutput bounds the output of one command kept in the journal.
const maxActionOutput = 64 << 10

// ActionPlan is an action with its templates filled: the exact commands it
// will run, shown to the responder before they confirm.
type ActionPlan struct {
	Name     string
	Title    string
	Commands [][]string // argv of each run, never through a shell
	Timeout  time.Duration
	// Confirm is what the responder must type to run it: the subject agent.
	Confirm string
	// Values are the variable values the commands hold, each with where it
	// came from (Case.Provenance), in the order they first appear.
	Values []PlanValue
}

// PlanValue is one value an action's commands hold and its provenance.
type PlanValue struct {
	Var, Value, From string
}

// CommandLine writes argv the way a shell would read it back, for showing.
// The words are as the case supplied them: whoever shows the line makes
// it printable, once.
func CommandLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`;&|<>(){}*?![]#~") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// PlanAction fills the named action's command template from the case. A
// variable with several values gives one command per value; values are
// whole arguments, so nothing the evidence holds can add an argument or
// reach a shell, and each must look like what its variable holds
// (checkValue), or the plan is refused saying which value, of which
// variable, from where.
func (c *Config) PlanAction(name string, cs Case) (ActionPlan, error) {
	if c.trust != "" {
		return ActionPlan{}, fmt.Errorf("%w: action %s: %s is not owned by you or root (%s): its actions never run, whatever the workspace's sharing", ErrConfig, name, c.Path(configFile), c.trust)
	}
	a, ok := c.Actions[name]
	if !ok {
		return ActionPlan{}, fmt.Errorf("%w: %s (add it under actions: in %s)", ErrNoAction, name, c.Path(configFile))
	}
	if len(cs.Subject) == 0 {
		return ActionPlan{}, fmt.Errorf("action %s: name the agent under investigation first", name)
	}
	words, err := splitWords(a.Run)
	if err != nil {
		return ActionPlan{}, fmt.Errorf("action %s: %w", name, err)
	}
	vars := cs.ActionVars()
	prov := cs.Provenance()
	for _, w := range words {
		for _, n := range playbook.Names(w) {
			for _, v := range vars[n] {
				if err := c.checkValue(n, v, orUnknown(prov[v])); err != nil {
					return ActionPlan{}, fmt.Errorf("action %s: %w", name, err)
				}
			}
		}
	}
	argvs := [][]string{nil}
	for _, w := range words {
		vals, err := expandWord(w, vars)
		if err != nil {
			return ActionPlan{}, fmt.Errorf("action %s: %w", name, err)
		}
		var next [][]string
		for _, argv := range argvs {
			for _, v := range vals {
				next = append(next, append(append([]string(nil), argv...), v))
			}
		}
		argvs = next
		if len(argvs) > maxActionCommands {
			return ActionPlan{}, fmt.Errorf("action %s: its variables make more than %d commands; narrow the subject or split the template", name, maxActionCommands)
		}
	}
	timeout, _ := a.timeout()
	title := a.Title
	if title == "" {
		title = name
	}
	var values []PlanValue
	for _, w := range words {
		for _, n := range playbook.Names(w) {
			for _, v := range vars[n] {
				if playbook.IsTimeVariable(n) {
					continue
				}
				values = append(values, PlanValue{Var: n, Value: v, From: orUnknown(prov[v])})
			}
		}
	}
	return ActionPlan{Name: name, Title: title, Commands: argvs, Timeout: timeout, Confirm: strings.Join(cs.Subject, ","), Values: values}, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "the case (subject or journal)"
	}
	return s
}

// expandWord fills one word of a command: one result per combination of
// the values of the variables it names, each value taken as it is and
// substituted in one pass (a value reading {{pod}} stays text).
func expandWord(w string, vars playbook.Vars) ([]string, error) {
	combos := []playbook.Vars{{}}
	for _, n := range playbook.Names(w) {
		if len(vars[n]) == 0 {
			return nil, fmt.Errorf("{{%s}} has no value for this case", n)
		}
		var next []playbook.Vars
		for _, c := range combos {
			for _, v := range vars[n] {
				x := c.Clone()
				x[n] = []string{v}
				next = append(next, x)
			}
		}
		combos = next
	}
	out := make([]string, 0, len(combos))
	for _, c := range combos {
		s, err := playbook.ExpandText(w, c)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// maxActionCommands bounds the commands one confirmation runs: values
// multiply (every session's IP times every credential), and each command
// should be one a responder has read.
const maxActionCommands = 64

// ActionRun is one command of an action as it ran (or would have).
type ActionRun struct {
	Argv     []string      `json:"argv"`
	ExitCode int           `json:"exit_code"`
	Output   string        `json:"output,omitempty"`
	Cut      bool          `json:"output_cut,omitempty"`
	Err      string        `json:"error,omitempty"`
	Took     time.Duration `json:"took"`
	DryRun   bool          `json:"dry_run,omitempty"`
}

// Execute runs the plan's commands one after another, each with the plan's
// timeout, after checking the confirmation. A dry run runs nothing and
// reports what would run. It stops at the first command that fails.
func (p ActionPlan) Execute(ctx context.Context, confirm string, dryRun bool) ([]ActionRun, error) {
	if strings.TrimSpace(confirm) != p.Confirm {
		return nil, fmt.Errorf("%w: type %s to run %s", ErrNotConfirmed, p.Confirm, p.Name)
	}
	var runs []ActionRun
	for _, argv := range p.Commands {
		if dryRun {
			runs = append(runs, ActionRun{Argv: argv, ExitCode: -1, DryRun: true})
			continue
		}
		r := runCommand(ctx, argv, p.Timeout)
		runs = append(runs, r)
		if r.ExitCode != 0 {
			return runs, fmt.Errorf("action %s: %s: %s", p.Name, CommandLine(argv), r.failure())
		}
	}
	return runs, nil
}

func (r ActionRun) failure() string {
	if r.Err != "" {
		return r.Err
	}
	return fmt.Sprintf("exit status %d", r.ExitCode)
}

func runCommand(ctx context.Context, argv []string, timeout time.Duration) ActionRun {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r := ActionRun{Argv: argv}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = 2 * time.Second
	var out cappedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	r.Took = time.Since(start).Round(time.Millisecond)
	r.Output, r.Cut = evidence.PrintableLines(out.b.String()), out.cut
	var exit *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		r.ExitCode, r.Err = -1, fmt.Sprintf("timed out after %s", timeout)
	case errors.As(err, &exit):
		r.ExitCode = exit.ExitCode()
	case err != nil:
		r.ExitCode, r.Err = -1, err.Error()
	}
	return r
}

// cappedBuffer keeps the first maxActionOutput bytes written to it.
type cappedBuffer struct {
	b   bytes.Buffer
	cut bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := maxActionOutput - c.b.Len(); room < len(p) {
		c.cut = true
		if room > 0 {
			c.b.Write(p[:room])
		}
		return len(p), nil
	}
	return c.b.Write(p)
}

// splitWords splits a command line into words: spaces separate, '…' keeps
// everything literally, "…" keeps spaces and \" \\; no other expansion.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in := false
	quote := rune(0)
	esc := false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				esc = true
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '\\':
			esc, in = true, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote in %q", quote, s)
	}
	if esc {
		return nil, fmt.Errorf("trailing backslash in %q", s)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}
