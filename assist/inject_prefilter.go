package assist

import (
	"regexp/syntax"
	"strings"
)

// triggers is a set of literal strings such that every match of an
// expression contains at least one of them, or nil when none could be
// found (the expression is then always tried). Most lines hold none of a
// rule's triggers, and strings.Contains over them costs a small part of
// running the expression, whose bounded gaps ([^.]{0,40}) keep dozens of
// threads alive at each byte.
func triggers(expr string) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	return literalsOf(re.Simplify())
}

// minTrigger is the shortest literal worth a search: shorter ones ("ai")
// are in too many words to rule anything out.
const minTrigger = 3

func literalsOf(re *syntax.Regexp) []string {
	if ex := exact(re); ex != nil {
		if shortest(ex) >= minTrigger {
			return ex
		}
		return nil
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return literalsOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalsOf(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			l := literalsOf(s)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	case syntax.OpConcat:
		// Runs of parts with a finite set of strings are joined (the
		// parser splits "discard|dismiss" into "dis" and "card|miss");
		// any one run's or part's set will do: the best (see better).
		var best, run []string
		consider := func(l []string) {
			if l != nil && shortest(l) >= minTrigger && (best == nil || better(l, best)) {
				best = l
			}
		}
		for _, s := range re.Sub {
			if ex := exact(s); ex != nil {
				if run == nil {
					run = ex
				} else if run = cross(run, ex); run == nil {
					run = ex
				}
				consider(run)
				continue
			}
			run = nil
			consider(literalsOf(s))
		}
		return best
	}
	return nil
}

// maxExact bounds the strings a finite sub-expression is expanded to.
const maxExact = 256

// exact is every string re matches, when they are few, or nil.
func exact(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return []string{""}
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) >= 8 {
					return nil
				}
				out = append(out, string(r))
			}
		}
		return out
	case syntax.OpCapture:
		return exact(re.Sub[0])
	case syntax.OpQuest:
		if ex := exact(re.Sub[0]); ex != nil {
			return append(ex, "")
		}
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			ex := exact(s)
			if ex == nil || len(out)+len(ex) > maxExact {
				return nil
			}
			out = append(out, ex...)
		}
		return out
	case syntax.OpConcat:
		out := []string{""}
		for _, s := range re.Sub {
			ex := exact(s)
			if ex == nil {
				return nil
			}
			if out = cross(out, ex); out == nil {
				return nil
			}
		}
		return out
	}
	return nil
}

// cross is every a followed by every b, or nil past maxExact.
func cross(a, b []string) []string {
	if len(a)*len(b) > maxExact {
		return nil
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// better reports whether trigger set a costs less than b for as much
// filtering: a set of words of four letters or more is good enough, and
// then the fewer the cheaper (each is a search); otherwise the longer.
func better(a, b []string) bool {
	ga, gb := shortest(a) >= 4, shortest(b) >= 4
	switch {
	case ga && gb:
		return len(a) < len(b) || len(a) == len(b) && shortest(a) > shortest(b)
	case ga != gb:
		return ga
	}
	return shortest(a) > shortest(b)
}

func shortest(l []string) int {
	n := -1
	for _, s := range l {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}

// mayMatch reports whether sk holds one of the triggers (always, when
// there are none).
func mayMatch(sk string, trig []string) bool {
	if trig == nil {
		return true
	}
	for _, t := range trig {
		if strings.Contains(sk, t) {
			return true
		}
	}
	return false
}
