package incident

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/cordon-ir/cordon/playbook"
)

// defaultValuePatterns are what each variable can hold when it fills an
// action's command: the shapes of ids, addresses and names. The values
// come from records the agent under investigation wrote, and a command
// reads more into a word than its text: curl takes @FILE, a shell or scp
// expands ~user, a comma makes a list of one argument, a slash a path.
func defaultValuePatterns() map[string]string {
	id := `[A-Za-z0-9_][A-Za-z0-9._:-]*`
	dns := `[a-z0-9]([a-z0-9.-]*[a-z0-9])?` // a Kubernetes name (RFC 1123)
	stamp := `[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})`
	return map[string]string{
		playbook.VarAgent:       id,
		playbook.VarSession:     id,
		playbook.VarRun:         id,
		playbook.VarSandbox:     id,
		playbook.VarContainer:   id,
		playbook.VarModel:       `[A-Za-z0-9_][A-Za-z0-9._:+/-]*`, // org/name as model hubs write it
		playbook.VarIP:          `[0-9A-Fa-f:.]+`,
		playbook.VarPod:         dns + `(/` + dns + `)?`, // namespace/name
		playbook.VarCredential:  `[A-Za-z0-9_][A-Za-z0-9._:=+-]*`,
		playbook.VarSince:       stamp,
		playbook.VarUntil:       stamp,
		playbook.VarContainedAt: stamp,
	}
}

// DefaultValuePattern is the pattern a value of variable name must match
// to fill an action's command when cordon.yaml sets none ("" for an
// unknown variable).
func DefaultValuePattern(name string) string { return defaultValuePatterns()[name] }

// validateVariables checks the variables: section: known variables,
// patterns that compile.
func (c *Config) validateVariables() error {
	names := make([]string, 0, len(c.Variables))
	for n := range c.Variables {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !playbook.IsVariable(n) {
			return fmt.Errorf("variables: %s: no such variable (known: %s)", n, strings.Join(playbook.Variables(), ", "))
		}
		if _, err := wholeMatch(c.Variables[n]); err != nil {
			return fmt.Errorf("variables: %s: %v", n, err)
		}
	}
	return nil
}

func wholeMatch(pattern string) (*regexp.Regexp, error) {
	return regexp.Compile(`^(?:` + pattern + `)$`)
}

// checkValue refuses a value of variable name that its pattern (from
// cordon.yaml, or the default) does not admit in whole, or that could act
// as an option or a path elsewhere whatever the pattern says: starting
// with "-", holding "..", a space or a control character. from is the
// value's provenance, for the refusal to name.
func (c *Config) checkValue(name, value, from string) error {
	pattern, where := c.Variables[name], "set in "+c.Path(configFile)
	if pattern == "" {
		pattern, where = DefaultValuePattern(name), "the default; set another in "+c.Path(configFile)
	}
	re, err := wholeMatch(pattern)
	if err != nil {
		return fmt.Errorf("{{%s}}: pattern %q: %v", name, pattern, err)
	}
	floor := func(what string) string {
		return fmt.Sprintf("%s, which no pattern (variables: %s) admits", what, name)
	}
	var why string
	switch {
	case value == "":
		why = floor("it is empty")
	case strings.HasPrefix(value, "-"):
		why = floor("it would read as an option")
	case strings.Contains(value, ".."):
		why = floor("it holds .., a path elsewhere")
	case strings.IndexFunc(value, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		why = floor("it holds a space or a control character")
	case !re.MatchString(value):
		why = fmt.Sprintf("it is not what a %s holds: %s (variables: %s, %s)", name, pattern, name, where)
	default:
		return nil
	}
	return fmt.Errorf("{{%s}} is %q, from %s, which the agent under investigation may have written: %s; run the command by hand after checking it", name, value, from, why)
}
