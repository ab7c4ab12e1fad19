package evidence

import (
	"fmt"
	"strings"
)

// Hints says what a responder may not expect of a query that reads: how
// the old syntax read it when that differs, a lower-case and/or/not
// searched as a word, and an exact value that no event has but one in
// another case does (counted fields only: the counts kept at ingest
// answer it without a search). None of them is an error: the query runs.
func Hints(text string, q Query, c Counts) []string {
	var out []string
	if old, _, changed, err := Changed(text); err == nil && changed {
		if old.Op() == OpNone {
			out = append(out, "the old syntax found nothing for this")
		} else {
			out = append(out, fmt.Sprintf("the old syntax read this as %s", old))
		}
	}
	for _, w := range strings.Fields(text) {
		switch w {
		case "and", "or", "not":
			out = append(out, fmt.Sprintf("%q is searched as a word; write %s for the operator", w, strings.ToUpper(w)))
		}
	}
	seen := map[string]bool{}
	q.Leaves(func(l Query) {
		// dst_host is compared lowercased, its counts are not: no hint there
		if l.op != OpTerm || l.fold || !isCounted(l.field) || l.field == "dst_host" || seen[l.field+":"+l.value] {
			return
		}
		seen[l.field+":"+l.value] = true
		values := c.Fields[l.field]
		if values == nil || values[l.value] > 0 {
			return
		}
		for v, n := range values {
			if v != "" && strings.EqualFold(v, l.value) {
				out = append(out, fmt.Sprintf("no event has %s; %s has %d (values are exact, case included)", Term(l.field, l.value), Term(l.field, v), n))
				return
			}
		}
	})
	return out
}

// ReadAs is how the console and the CLI say a query was read: its
// canonical text, when it differs from what was typed but for spacing and
// a + before a clause (which changes nothing).
func ReadAs(text string, q Query) string {
	canon := q.String()
	typed := strings.Fields(text)
	for i, f := range typed {
		typed[i] = strings.TrimPrefix(f, "+")
	}
	if strings.Join(typed, " ") == canon || strings.TrimSpace(text) == "" {
		return ""
	}
	return canon
}
