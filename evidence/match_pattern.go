package evidence

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

func compilePattern(name, re string, an *analyzer) (pred, error) {
	f, err := fieldFor(name)
	if err != nil {
		return nil, err
	}
	rx, err := regexp.Compile(`^(?:` + re + `)$`)
	if err != nil {
		return nil, fmt.Errorf("bad pattern %q: %w", re, err)
	}
	return patternPred{f: f, rx: rx, an: an, lits: literals(re)}, nil
}

// literals returns the words of a pattern that is only an alternation of
// plain words (cat|tar|proxy\.env), else nil: text that contains none of
// them cannot have a matching token, and need not be analysed.
func literals(re string) []string {
	var out []string
	for _, alt := range strings.Split(re, "|") {
		if alt == "" || strings.Contains(strings.ReplaceAll(alt, `\.`, ""), ".") {
			return nil // empty, or an unescaped dot (any character)
		}
		alt = strings.ReplaceAll(alt, `\.`, ".")
		for _, c := range alt {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
				return nil
			}
		}
		out = append(out, alt)
	}
	return out
}

type patternPred struct {
	f    Field
	rx   *regexp.Regexp
	an   *analyzer
	lits []string // see literals
}

func (p patternPred) match(ev *Event) bool {
	switch p.f.kind {
	case kwField, listField, intField:
		for _, v := range p.f.Values(ev) {
			if p.rx.MatchString(v) {
				return true
			}
		}
		return false
	case textField:
		for _, s := range p.f.parts(ev) {
			if s != "" && p.maybe(s) && p.an.anyToken(s, p.rx.Match) {
				return true
			}
		}
	}
	return false
}

func (p patternPred) maybe(s string) bool {
	if p.lits == nil {
		return true
	}
	for _, l := range p.lits {
		if containsFold(s, l) {
			return true
		}
	}
	return false
}

func compileNumRange(q Query) (pred, error) {
	f, err := fieldFor(q.field)
	if err != nil {
		return nil, err
	}
	if f.kind != numField {
		return always(false), nil // numbers are indexed as numbers only here
	}
	return numRange{f: f, min: q.lo, max: q.hi, minIncl: q.loIncl, maxIncl: q.hiIncl}, nil
}

type numRange struct {
	f                Field
	min, max         *float64
	minIncl, maxIncl bool
}

func (r numRange) match(ev *Event) bool {
	n := r.f.num(ev)
	if n == 0 {
		return false // zero is not indexed
	}
	v := float64(n)
	if r.min != nil && (v < *r.min || v == *r.min && !r.minIncl) {
		return false
	}
	return r.max == nil || v < *r.max || v == *r.max && r.maxIncl
}

// dateRange matches [start, end), a zero bound open.
type dateRange struct{ start, end time.Time }

func (r dateRange) match(ev *Event) bool {
	t := ev.Time
	return (r.start.IsZero() || !t.Before(r.start)) && (r.end.IsZero() || t.Before(r.end))
}
