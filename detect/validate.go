package detect

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// fieldError is a validation error about one field of a rule, so that
// the loader can point at its line.
type fieldError struct {
	field, msg string
	cause      error
}

func (e *fieldError) Error() string { return e.msg }

// Unwrap gives the error the message tells, if any.
func (e *fieldError) Unwrap() error { return e.cause }

func invalid(field, format string, a ...any) error {
	return &fieldError{field: field, msg: fmt.Sprintf(format, a...)}
}

var ruleID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Validate checks a rule and compiles its queries. The loader reports its
// errors at the line of the offending field; a rule built in Go gets them
// from the engine.
func (r *Rule) Validate() error {
	c := &r.Correlation
	switch {
	case !ruleID.MatchString(r.ID):
		return invalid("id", "id %q: want lowercase letters, digits and dashes", r.ID)
	case r.Title == "":
		return invalid("title", "rule %s has no title", r.ID)
	case SeverityRank(r.Severity) < 0:
		return invalid("severity", "severity %q is not one of info, low, medium, high, critical", r.Severity)
	case !contains(Phases(), r.Phase):
		return invalid("phase", "phase %q is not one of %s", r.Phase, strings.Join(Phases(), ", "))
	case r.Explain == "":
		return invalid("explain", "rule %s has no explain template", r.ID)
	case c.Window <= 0:
		return invalid("window", "correlation needs a positive window (a Go duration like 10m)")
	case c.Ordered && c.Type != Temporal:
		return invalid("type", "ordered belongs to a temporal correlation, not %s", c.Type)
	}
	if c.GroupBy == "" {
		c.GroupBy = "agent"
	}
	if f, ok := evidence.LookupField(c.GroupBy); !ok || !f.Groupable() {
		return invalid("group_by", "group_by %q: want a keyword field such as agent, session, src_ip, user", c.GroupBy)
	}
	vars, ok := templateVars(c.Type)
	if !ok {
		return invalid("type", "correlation type %q is not one of %s", c.Type, strings.Join(CorrelationTypes(), ", "))
	}
	if err := checkShape(r); err != nil {
		return err
	}
	if err := checkTemplate(r.Explain, vars); err != nil {
		return invalid("explain", "%v", err)
	}
	if c.Type == Temporal && c.Condition.Gt == nil && c.Condition.Gte == nil {
		c.Condition.Gte = Num(float64(len(c.Steps))) // every step
	}
	if metric(c.Type) && c.Condition == (Condition{}) {
		return invalid("condition", "%s needs a condition (gte, gt, lte, lt)", c.Type)
	}
	if c.Condition.Neq != nil && c.Type != EventCount && c.Type != ValueCount && !metric(c.Type) {
		return invalid("condition", "neq belongs to event_count, value_count and the metric correlations, not %s", c.Type)
	}
	// neq judges a window's final count: it needs no lower bound
	if c.Condition.Gt == nil && c.Condition.Gte == nil && c.Condition.Neq == nil && !metric(c.Type) {
		if c.Type == EventCount || c.Type == ValueCount || c.Type == Rate {
			return invalid("condition", "%s needs a condition with a lower bound (gte: N or gt: N)", c.Type)
		}
		c.Condition.Gte = Num(1)
	}
	r.match = nil
	for _, q := range r.Query {
		m, err := compileRuleQuery(q)
		if err != nil {
			return &fieldError{field: "query", msg: err.Error(), cause: err}
		}
		r.match = append(r.match, m)
	}
	r.steps = nil
	for i, s := range c.Steps {
		if s.Rule != nil {
			if err := s.Rule.Validate(); err != nil {
				return &fieldError{field: "steps", msg: fmt.Sprintf("step %d: rule %s: %v", i+1, s.Rule.ID, err), cause: err}
			}
			r.steps = append(r.steps, nil)
			continue
		}
		m, err := compileRuleQuery(s.Query)
		if err != nil {
			return &fieldError{field: "steps", msg: fmt.Sprintf("step %d: %v", i+1, err), cause: err}
		}
		r.steps = append(r.steps, m)
	}
	return nil
}

// compileRuleQuery parses and compiles a rule's query. Parse refuses what
// would silently find nothing; a query that read otherwise in the old
// syntax (unsigned clauses optional) is refused until it is rewritten, so
// that a rule never starts finding something else unseen.
func compileRuleQuery(text string) (*evidence.Matcher, error) {
	old, now, changed, err := evidence.Changed(text)
	if err != nil {
		// the query's own text is cut short: a rule file may carry a
		// hostile one megabyte long
		return nil, fmt.Errorf("query %q: %s", clip(text, 120), strings.TrimPrefix(err.Error(), evidence.ErrQuery.Error()+": "))
	}
	if changed {
		return nil, &ChangedError{Query: text, Old: old, New: now}
	}
	return evidence.Compile(now)
}

// ChangedError is a rule query whose meaning changed with the query syntax:
// unsigned clauses were optional, and are required now.
type ChangedError struct {
	Query    string
	Old, New evidence.Query
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("query %q changed meaning: it used to read %s and now reads %s; to keep the old meaning write %q (see docs/query.md)",
		e.Query, e.Old, e.New, e.Old.String())
}

// checkShape checks the fields each correlation type needs or ignores.
func checkShape(r *Rule) error {
	c := r.Correlation
	if stepped(c.Type) {
		if len(c.Steps) < 2 {
			return invalid("steps", "%s needs two or more steps", c.Type)
		}
		for i, s := range c.Steps {
			if strings.TrimSpace(s.Query) == "" && s.Rule == nil {
				return invalid("steps", "step %d has no query", i+1)
			}
		}
		if len(r.Query) > 0 {
			return invalid("query", "%s takes its queries from steps; remove query", c.Type)
		}
	} else {
		// but a count over other correlations' findings (a chain, from
		// Sigma), whose steps name them
		for _, s := range c.Steps {
			if !counting(c.Type) || s.Rule == nil || s.Query != "" {
				return invalid("steps", "steps belong to ordered_sequence and temporal only")
			}
		}
		if len(r.Query) == 0 && len(c.Steps) == 0 {
			return invalid("query", "rule %s has no query", r.ID)
		}
		for _, q := range r.Query {
			if strings.TrimSpace(q) == "" {
				return invalid("query", "rule %s has an empty query (to select every event, say so: *)", r.ID)
			}
		}
	}
	f, ok := evidence.LookupField(c.Field)
	switch {
	case c.Type == ValueCount:
		if c.Field == "" || !ok || !f.Countable() {
			return invalid("field", "value_count needs field: the field whose distinct values it counts (got %q)", c.Field)
		}
	case metric(c.Type):
		if !ok || f.Type() != evidence.FieldNumber && f.Type() != evidence.FieldInteger {
			return invalid("field", "%s needs field: a numeric field such as bytes_out, bytes_in, duration_ms (got %q)", c.Type, c.Field)
		}
	case c.Field != "":
		return invalid("field", "field belongs to value_count and the metric correlations only")
	}
	if (c.Type == ValuePercentile) != (c.Percentile != 0) || c.Percentile < 0 || c.Percentile > 100 {
		return invalid("percentile", "percentile belongs to value_percentile, which needs one above 0 and at most 100 (got %v)", c.Percentile)
	}
	if c.MinEvents != 0 && c.Type != Rate {
		return invalid("min_events", "min_events belongs to rate only")
	}
	return nil
}

// stepped reports a correlation type whose queries are its steps.
func stepped(typ string) bool { return typ == OrderedSequence || typ == Temporal }

// counting reports a correlation type that counts (or measures) the
// events in a sliding window (detect/count.go).
func counting(typ string) bool { return typ == EventCount || typ == ValueCount || metric(typ) }

// CorrelationTypes lists every correlation type, generic ones first.
func CorrelationTypes() []string {
	return []string{EventCount, ValueCount, ValueSum, ValueAvg, ValuePercentile, ValueMedian, OrderedSequence, Temporal, Rate,
		CredentialMisuse, DataExfiltration, DenialAdaptation, DestinationExpansion, IntentMismatch, PlanDivergence, ToolEscalation}
}

// templateVars lists the variables an explain template may name for a
// correlation type.
func templateVars(typ string) ([]string, bool) {
	common := []string{"count", "window", "span", "start", "end", "group", "agent", "rule"}
	var extra []string
	switch typ {
	case EventCount:
	case ValueCount:
		extra = []string{"distinct", "field", "values"}
	case ValueSum, ValueAvg, ValuePercentile, ValueMedian:
		extra = []string{"value", "field"}
	case OrderedSequence:
		extra = []string{"sequences", "steps"}
	case Temporal:
		extra = []string{"steps"}
	case Rate:
		extra = []string{"ratio", "baseline", "peers"}
	case DenialAdaptation:
		extra = []string{"denials", "routes", "detail"}
	case CredentialMisuse:
		extra = []string{"credential", "owner", "sources", "detail"}
	case DestinationExpansion:
		extra = []string{"distinct", "values"}
	case DataExfiltration:
		extra = []string{"bytes", "destination", "allowlist", "methods", "seen_by"}
	case ToolEscalation:
		extra = []string{"tools", "detail"}
	case PlanDivergence:
		extra = []string{"calls", "workdir", "values"}
	case IntentMismatch:
		extra = []string{"detail"}
	default:
		return nil, false
	}
	out := append(common, extra...)
	sort.Strings(out)
	return out, true
}

var templateVar = regexp.MustCompile(`{{\s*([a-z_]+)\s*}}`)

func checkTemplate(t string, vars []string) error {
	for _, m := range templateVar.FindAllStringSubmatch(t, -1) {
		if !contains(vars, m[1]) {
			return fmt.Errorf("explain names {{%s}}; this correlation offers %s", m[1], strings.Join(vars, ", "))
		}
	}
	return nil
}

// render fills an explain template.
func render(t string, vars map[string]string) string {
	return templateVar.ReplaceAllStringFunc(t, func(m string) string {
		return vars[templateVar.FindStringSubmatch(m)[1]]
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
