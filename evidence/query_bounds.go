package evidence

import (
	"fmt"
	"regexp/syntax"
	"strings"
)

// Bounds of a pattern (a regexp, a wildcard): the index turns each into
// an automaton walked over its term dictionary, and a pattern built to be
// huge drove a served console's host to 5 GB. None a person writes comes
// near them.
const (
	MaxPatternBytes = 1024 // a pattern's length
	MaxPatternInst  = 2000 // a regexp's compiled instructions
	MaxWildcards    = 16   // a wildcard's * and ?
)

// checkPattern says what is wrong with a pattern past the bounds.
func checkPattern(op Op, value string) error {
	if len(value) > MaxPatternBytes {
		return fmt.Errorf("the pattern is %d bytes long, over %d: search for a shorter part of it", len(value), MaxPatternBytes)
	}
	switch op {
	case OpRegexp:
		re, err := syntax.Parse(value, syntax.Perl)
		if err != nil {
			return err
		}
		prog, err := syntax.Compile(re.Simplify())
		if err != nil {
			return err
		}
		if n := len(prog.Inst); n > MaxPatternInst {
			return fmt.Errorf("the regular expression compiles to %d steps, over %d: write it with fewer repetitions", n, MaxPatternInst)
		}
	case OpWildcard:
		if n := strings.Count(value, "*") + strings.Count(value, "?"); n > MaxWildcards {
			return fmt.Errorf("the pattern has %d wildcards, over %d", n, MaxWildcards)
		}
	}
	return nil
}
