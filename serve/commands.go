package serve

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cordon-ir/cordon/incident"
)

// ExecFunc runs one cordon subcommand (args[0] is its name) against ws,
// the workspace the server holds open, and returns its exit code. It must
// not open the index again: while the server follows evidence it holds the
// index for writing, which no second opener may take. The server calls it
// only with a command of Allowed, with the flags that entry permits and
// the free words after a "--", so no flag a client sends can point the
// command at another workspace or file.
type ExecFunc func(ctx context.Context, ws *incident.Workspace, args []string, stdout, stderr io.Writer) int

// Command is one subcommand a client may run as `ssh HOST NAME ...`.
type Command struct {
	Name string
	// Flags are the only flags accepted without a value.
	Flags []string
	// Choices are the only flags accepted with a value, each with the
	// values it may take ("--format": md, json, html).
	Choices map[string][]string
	// Words: free words (a query) are accepted after the flags.
	Words bool
	// Usage is shown when a command line is refused.
	Usage string
}

// DefaultCommands are the commands a client may run without the console:
// each only reads the case.
func DefaultCommands() []Command {
	return []Command{
		{Name: "findings", Flags: []string{"--json"}, Usage: "findings [--json]"},
		{Name: "search", Flags: []string{"--json"}, Words: true, Usage: "search [--json] QUERY"},
		{Name: "report", Choices: map[string][]string{"--format": {"md", "json", "html"}}, Usage: "report [--format md|json|html]"},
	}
}

// errRefused is a command line that is not on the list; its text is for
// the client.
type errRefused string

func (e errRefused) Error() string { return string(e) }

// checkCommand maps a client's command line to the arguments to run, or
// says why it is refused.
func checkCommand(allowed []Command, argv []string) ([]string, error) {
	if len(argv) == 0 {
		return nil, errRefused("no command")
	}
	i := slices.IndexFunc(allowed, func(c Command) bool { return c.Name == argv[0] })
	if i < 0 {
		return nil, errRefused(fmt.Sprintf("%q is not available over SSH: this server runs the incident console and only these read-only commands:\n%s",
			argv[0], usageList(allowed)))
	}
	c := allowed[i]
	out := []string{c.Name}
	var words []string
	inWords := false
	seen := map[string]bool{}
	rest := argv[1:]
	for len(rest) > 0 {
		a := rest[0]
		rest = rest[1:]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case inWords:
			words = append(words, a)
		case a == "--" && c.Words:
			inWords = true // what follows is the query, even "--x"
		case slices.Contains(c.Flags, a):
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		case c.Choices[name] != nil && !seen[name]:
			if !hasValue {
				if len(rest) == 0 {
					return nil, errRefused(fmt.Sprintf("%s: %s needs a value; usage: %s", c.Name, name, c.Usage))
				}
				value, rest = rest[0], rest[1:]
			}
			if !slices.Contains(c.Choices[name], value) {
				return nil, errRefused(fmt.Sprintf("%s: %s %q is not allowed over SSH; usage: %s", c.Name, name, value, c.Usage))
			}
			seen[name] = true
			out = append(out, name+"="+value)
		case strings.HasPrefix(a, "-") && (!c.Words || strings.HasPrefix(a, "--")):
			return nil, errRefused(fmt.Sprintf("%s: flag %q is not allowed over SSH; usage: %s", c.Name, a, c.Usage))
		case !c.Words:
			return nil, errRefused(fmt.Sprintf("%s takes no arguments here (%q); usage: %s", c.Name, a, c.Usage))
		default:
			// A query word; "-kind:dns" is query syntax, not a flag.
			words = append(words, a)
		}
	}
	if len(words) > 0 {
		out = append(append(out, "--"), words...)
	}
	return out, nil
}

func usageList(allowed []Command) string {
	var b strings.Builder
	for _, c := range allowed {
		fmt.Fprintf(&b, "  %s\n", c.Usage)
	}
	return b.String()
}
