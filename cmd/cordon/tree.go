package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newRoot builds the command tree for one run. Every flag value lives in
// the closures of this tree, so two runs in one process (cordon serve runs
// one per remote command) share nothing.
func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:           "cordon",
		Short:         "incident console for AI agents that crossed their sandbox boundary",
		SilenceErrors: true, // exitCode reports errors, once
		SilenceUsage:  true, // a mistake gets two lines, not the whole help
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(flagError)
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { help(c.OutOrStdout(), c) })
	for _, cm := range commands() {
		if cm.define != nil {
			root.AddCommand(build(e, cm))
		}
	}
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	if comp, _, err := root.Find([]string{"completion"}); err == nil && comp != root {
		// a shell it has no script for is a usage error that lists the
		// ones it has, not its help and exit 0
		comp.Args = cobra.ArbitraryArgs
		comp.RunE = func(_ *cobra.Command, args []string) error {
			var shells []string
			for _, c := range comp.Commands() {
				shells = append(shells, c.Name())
			}
			what := "completion needs a shell"
			if len(args) > 0 {
				what = fmt.Sprintf("no completion for %q", args[0])
			}
			return fmt.Errorf("%w: %s: the shells are %s", errUsage, what, strings.Join(shells, ", "))
		}
	}
	return root
}

// build makes the cobra command of one entry of the tree, and of its
// subcommands.
func build(e *env, cm command) *cobra.Command {
	c := &cobra.Command{Use: strings.TrimSpace(cm.name + " " + cm.args), Short: cm.summary}
	fs := c.Flags()
	fs.SortFlags = false
	// the commands' own checks (a missing --incident) print this before
	// their error, as they did with the standard flag package
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: %s %s\n", c.CommandPath(), cm.args)
		fmt.Fprint(e.stderr, fs.FlagUsages())
	}
	cm.define(e, c)
	// completion offers folders for a workspace
	if fs.Lookup("incident") != nil {
		_ = c.MarkFlagDirname("incident")
	}
	for flag, values := range flagChoices()[c.Name()] {
		_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	}
	if args, ok := argChoices()[c.Name()]; ok {
		c.ValidArgs = args
	}
	for _, sub := range cm.subs {
		c.AddCommand(build(e, sub))
	}
	return c
}

// wantArgs is an argument check: exactly n positional arguments, named
// by what in the error.
func wantArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		return hintError{fmt.Errorf("%w: %s takes %s, not %q", errUsage, c.CommandPath(), what, strings.Join(args, " ")),
			fmt.Sprintf("usage: %s%s", c.CommandPath(), strings.TrimPrefix(c.Use, c.Name()))}
	}
}

// flagChoices are the values shell completion offers for flags that take
// one of a few, by command name.
func flagChoices() map[string]map[string][]string {
	return map[string]map[string][]string{
		"search":   {"sort": {"time", "-time", "score"}},
		"findings": {"min-severity": {"info", "low", "medium", "high", "critical"}},
		"report":   {"format": {"md", "json", "html"}},
		"export":   {"format": {"timesketch", "ocsf", "stix"}},
		"drill":    {"role": {"facilitator", "participant"}},
	}
}

// argChoices are the first arguments completion offers, for commands whose
// first argument is a word of a fixed set.
func argChoices() map[string][]string {
	return map[string][]string{
		"journal":  {"verify", "sign", "anchor"},
		"evidence": {"verify"},
		"step":     {"start", "done", "skip"},
	}
}

// execute runs args through the tree. An unknown command is refused before
// cobra sees it, so that it gets cordon's two lines rather than cobra's.
func execute(ctx context.Context, e *env, args []string) error {
	e.argv = append([]string{"cordon"}, args...)
	root := newRoot(e)
	if err := unknownCommand(root, args); err != nil {
		return err
	}
	// a nil slice would make cobra read os.Args
	root.SetArgs(append([]string{}, longFlags(root, args)...))
	return root.ExecuteContext(ctx)
}

// hintError is a usage error with a second line that says what to do.
type hintError struct {
	err  error
	hint string
}

func (h hintError) Error() string { return h.err.Error() }
func (h hintError) Unwrap() error { return h.err }

func unknownCommand(root *cobra.Command, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") ||
		args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd {
		return nil // cobra adds its hidden completion commands as it runs
	}
	if c, _, err := root.Find(args[:1]); err == nil && c != root {
		return nil
	}
	hint := "cordon help lists the commands"
	if s := nearestCommand(root, args[0]); s != "" {
		hint = fmt.Sprintf("did you mean %s? (%s)", s, hint)
	}
	return hintError{fmt.Errorf("%w: unknown command %q", errUsage, args[0]), hint}
}

// nearestCommand is the command whose name is closest to typed, as
// nearestFlag chooses.
func nearestCommand(root *cobra.Command, typed string) string {
	fs := pflag.NewFlagSet("commands", pflag.ContinueOnError)
	for _, c := range root.Commands() {
		if !c.Hidden {
			fs.Bool(c.Name(), false, "")
		}
	}
	return nearestFlag(fs, typed)
}

// flagError turns pflag's complaint into a usage error naming the command,
// with the nearest flag it has as a suggestion.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	hint := c.CommandPath() + " --help lists its flags"
	typed := ""
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		typed, msg = name, "unknown flag --"+name
	} else if _, word, ok := strings.Cut(msg, "' in -"); ok && strings.HasPrefix(msg, "unknown shorthand flag") {
		typed, msg = word, "unknown flag -"+word
	}
	if typed != "" {
		if s := nearestFlag(c.Flags(), typed); s != "" {
			hint = fmt.Sprintf("did you mean --%s? (%s)", s, hint)
		}
	}
	return hintError{fmt.Errorf("%w: %s for %s", errUsage, msg, c.CommandPath()), hint}
}

// nearestFlag is the flag whose name is closest to typed, if close enough
// to be what was meant: at most a third of its letters off, or typed is
// its prefix.
func nearestFlag(fs *pflag.FlagSet, typed string) string {
	typed, _, _ = strings.Cut(typed, "=")
	best, bestD := "", max(1, len(typed)/3)+1
	fs.VisitAll(func(f *pflag.Flag) {
		d := evidence.EditDistance(typed, f.Name)
		if len(typed) > 1 && strings.HasPrefix(f.Name, typed) {
			d = 0
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// longFlags rewrites -name to --name for the long flags of the command
// args names. cordon parsed its flags with Go's flag package, which takes
// both; scripts written then keep working. Nothing after "--" changes.
func longFlags(root *cobra.Command, args []string) []string {
	c, _, err := root.Find(args)
	if err != nil || c == root {
		return args
	}
	c.InitDefaultHelpFlag()
	fs := c.Flags()
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || len(a) < 2 {
			continue
		}
		long := strings.HasPrefix(a, "--")
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if !long {
			out[i] = "-" + a
		}
		if !hasValue && f.NoOptDefVal == "" {
			i++ // its value, which may start with a dash (--sort -time)
		}
	}
	return out
}

// help prints cordon's own help for the root, and for a command its usage
// line, summary, subcommands and flags.
func help(w io.Writer, c *cobra.Command) {
	if !c.HasParent() {
		usage(w)
		return
	}
	fmt.Fprintf(w, "usage: %s%s\n\n%s\n", c.CommandPath(), strings.TrimPrefix(c.Use, c.Name()), c.Short)
	if subs := c.Commands(); len(subs) > 0 {
		fmt.Fprintln(w, "\ncommands:")
		for _, s := range subs {
			if !s.Hidden && s.Name() != "help" {
				fmt.Fprintf(w, "  %-12s %s\n", s.Name(), s.Short)
			}
		}
	}
	if c.HasAvailableFlags() {
		fmt.Fprintf(w, "\nflags:\n%s", c.Flags().FlagUsages())
	}
}
