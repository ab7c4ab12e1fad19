package main

import (
	"fmt"

	"github.com/cordon-ir/cordon/evidence"
)

// readQuery parses a query given on the command line. A query that does
// not read is an error (exit 2, with the fix in its text); one that reads
// otherwise than typed, or that may find nothing it was meant to, is said
// on stderr before the results, so that a zero is never silent.
func readQuery(e *env, text string, c evidence.Counts) (evidence.Query, error) {
	q, err := evidence.Parse(text)
	if err != nil {
		return evidence.Query{}, fmt.Errorf("query %q: %w", text, err)
	}
	if r := evidence.ReadAs(text, q); r != "" {
		fmt.Fprintf(e.stderr, "read as: %s\n", r)
	}
	for _, h := range evidence.Hints(text, q, c) {
		fmt.Fprintf(e.stderr, "hint: %s\n", h)
	}
	return q, nil
}
