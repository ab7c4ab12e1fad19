package evidence

import (
	"errors"
	"strings"
	"testing"
)

// A query nested past MaxNesting is an error with its position, at once:
// 450,000 parentheses or NOTs crashed the process with a stack overflow.
func TestQueryNestingIsBounded(t *testing.T) {
	deep := 450_000
	for _, tc := range []struct{ name, text, want string }{
		{"parentheses", strings.Repeat("(", deep) + "agent:a" + strings.Repeat(")", deep), "( at column 101 nests deeper than 100"},
		{"field groups", "agent:" + strings.Repeat("(", deep) + "a" + strings.Repeat(")", deep), "( at column 107 nests deeper than 100"},
		{"NOTs", strings.Repeat("NOT ", deep) + "agent:a", "NOT at column 401 nests deeper than 100"},
		{"both", strings.Repeat("NOT (", deep) + "agent:a" + strings.Repeat(")", deep), "nests deeper than 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, parse := range []func(string) (Query, error){Parse, ParseLegacy} {
				_, err := parse(tc.text)
				if !errors.Is(err, ErrQuery) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%.60s…: %v, want %q", tc.text, err, tc.want)
				}
			}
		})
	}
	// what people write is far from it, and a NOT applies to one clause
	ok := []string{
		strings.Repeat("(", 99) + "agent:a" + strings.Repeat(")", 99),
		strings.Repeat("NOT agent:a ", 500),
		`cmdline:"((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("`,
		`url:/\({200}/`,
	}
	for i, text := range ok {
		_, err := Parse(text)
		if i < 2 && err != nil || err != nil && strings.Contains(err.Error(), "nests deeper") {
			t.Errorf("%.60s…: %v", text, err)
		}
	}
}
