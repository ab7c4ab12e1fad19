package drill

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Verdicts of an answer.
const (
	Right      = "right"
	Wrong      = "wrong"
	Unanswered = "unanswered"
	ToJudge    = "to judge" // free text: the facilitator decides
)

// defaultTolerance is how far a time answer may be from the expected one
// when the question names no tolerance.
const defaultTolerance = time.Minute

// Check scores an answer to q. day places a bare time of day ("14:21:03")
// on the scenario's date. It returns the verdict and why, in words.
func Check(q Question, given string, day time.Time) (verdict, why string) {
	given = strings.TrimSpace(given)
	if given == "" {
		return Unanswered, "no answer"
	}
	switch q.Kind {
	case KindText:
		return ToJudge, "the facilitator judges free text"
	case KindTime:
		return checkTime(q, given, day)
	case KindCredential:
		return checkSet(q, values(given))
	}
	vals := values(given)
	if len(vals) != 1 {
		return Wrong, fmt.Sprintf("one %s was asked for, %d given", q.Kind, len(vals))
	}
	if slices.Contains(normalizeAll(q.Kind, q.Answer), normalize(q.Kind, vals[0])) {
		return Right, ""
	}
	return Wrong, fmt.Sprintf("the evidence points to %s", strings.Join(q.Answer, " or "))
}

// checkSet wants every expected value named, and nothing else.
func checkSet(q Question, given []string) (string, string) {
	want := normalizeAll(q.Kind, q.Answer)
	got := normalizeAll(q.Kind, given)
	var missing, extra []string
	for i, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, q.Answer[i])
		}
	}
	for i, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, given[i])
		}
	}
	switch {
	case len(missing) == 0 && len(extra) == 0:
		return Right, ""
	case len(missing) > 0 && len(extra) > 0:
		return Wrong, fmt.Sprintf("missing %s; %s not expected", strings.Join(missing, ", "), strings.Join(extra, ", "))
	case len(missing) > 0:
		return Wrong, "missing " + strings.Join(missing, ", ")
	}
	return Wrong, strings.Join(extra, ", ") + " not expected"
}

func checkTime(q Question, given string, day time.Time) (string, string) {
	t, err := ParseAnswerTime(given, day)
	if err != nil {
		return Wrong, err.Error()
	}
	tol := defaultTolerance
	if q.Tolerance != "" {
		tol, _ = time.ParseDuration(q.Tolerance) // checked when loaded
	}
	for _, a := range q.Answer {
		want, _ := time.Parse(time.RFC3339Nano, a)
		if d := t.Sub(want); d <= tol && d >= -tol {
			return Right, ""
		}
	}
	return Wrong, fmt.Sprintf("the evidence says %s (± %s)", strings.Join(q.Answer, " or "), tol)
}

// ParseAnswerTime reads a time answer: RFC 3339, or a time of day on day.
func ParseAnswerTime(s string, day time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	for _, layout := range []string{"15:04:05", "15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			y, m, d := day.UTC().Date()
			return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time (RFC 3339 or HH:MM:SS)", s)
}

// values splits an answer into its values: commas, semicolons, spaces.
func values(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' })
}

func normalizeAll(kind string, vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = normalize(kind, v)
	}
	return out
}

// normalize compares answers the way a responder would: agents and hosts
// without case, hosts without a port or trailing dot.
func normalize(kind, v string) string {
	v = strings.TrimSpace(v)
	switch kind {
	case KindAgent:
		return strings.ToLower(v)
	case KindHost:
		v = strings.ToLower(strings.TrimSuffix(v, "."))
		if h, _, ok := strings.Cut(v, ":"); ok && !strings.Contains(v[len(h)+1:], ":") {
			v = h
		}
		return strings.TrimSuffix(v, ".")
	}
	return v
}
