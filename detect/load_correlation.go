package detect

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

func correlationField(f string) bool {
	switch f {
	case "type", "group_by", "window", "gap", "condition", "field", "steps", "min_events", "percentile":
		return true
	}
	return false
}

func parseCorrelation(file string, n *yaml.Node, c *Correlation, lines map[string]*yaml.Node) error {
	fail := func(n *yaml.Node, format string, a ...any) error {
		return &RuleError{File: file, Line: n.Line, Msg: fmt.Sprintf(format, a...)}
	}
	if n.Kind != yaml.MappingNode {
		return fail(n, "correlation is a mapping of type, group_by, window, gap, condition, field, steps")
	}
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		lines[k.Value] = k
		switch k.Value {
		case "type":
			c.Type = v.Value
		case "group_by":
			c.GroupBy = v.Value
		case "field":
			c.Field = v.Value
		case "window":
			d, err := time.ParseDuration(v.Value)
			if err != nil {
				errs = append(errs, fail(v, "window %q: want a Go duration like 90s, 10m, 1h", v.Value))
			}
			c.Window = d
		case "gap":
			d, err := time.ParseDuration(v.Value)
			if err != nil || d < 0 {
				errs = append(errs, fail(v, "gap %q: want a Go duration like 90s, 10m, 1h", v.Value))
			}
			c.Gap = d
		case "percentile":
			p, err := strconv.ParseFloat(v.Value, 64)
			if err != nil {
				errs = append(errs, fail(v, "percentile %q: want a number above 0 and at most 100", v.Value))
			}
			c.Percentile = p
		case "min_events":
			m, err := strconv.Atoi(v.Value)
			if err != nil || m < 0 {
				errs = append(errs, fail(v, "min_events %q: want a whole number", v.Value))
			}
			c.MinEvents = m
		case "condition":
			errs = append(errs, parseCondition(file, v, &c.Condition))
		case "steps":
			if v.Kind != yaml.SequenceNode {
				errs = append(errs, fail(v, "steps is a list of {name, query}"))
				continue
			}
			for _, s := range v.Content {
				var st Step
				if s.Kind != yaml.MappingNode {
					errs = append(errs, fail(s, "a step is a mapping of name and query"))
					continue
				}
				for j := 0; j+1 < len(s.Content); j += 2 {
					switch sk := s.Content[j]; sk.Value {
					case "name":
						st.Name = s.Content[j+1].Value
					case "query":
						st.Query = s.Content[j+1].Value
						if _, err := compileRuleQuery(st.Query); err != nil {
							errs = append(errs, fail(s.Content[j+1], "%v", err))
						}
					default:
						errs = append(errs, fail(sk, "unknown step field %q (want name, query)", sk.Value))
					}
				}
				c.Steps = append(c.Steps, st)
			}
		default:
			errs = append(errs, fail(k, "unknown correlation field %q (want type, group_by, window, gap, condition, field, percentile, steps, min_events)", k.Value))
		}
	}
	return errors.Join(errs...)
}

func parseCondition(file string, n *yaml.Node, c *Condition) error {
	if n.Kind != yaml.MappingNode {
		return &RuleError{File: file, Line: n.Line, Msg: "condition is a mapping like {gte: 5}"}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, err := strconv.ParseFloat(v.Value, 64)
		if err != nil {
			return &RuleError{File: file, Line: v.Line, Msg: fmt.Sprintf("condition %s: %q is not a number", k.Value, v.Value)}
		}
		switch k.Value {
		case "gt":
			c.Gt = &f
		case "gte":
			c.Gte = &f
		case "lt":
			c.Lt = &f
		case "lte":
			c.Lte = &f
		case "neq":
			c.Neq = &f
		default:
			return &RuleError{File: file, Line: k.Line, Msg: fmt.Sprintf("condition %q: want gt, gte, lt, lte or neq", k.Value)}
		}
	}
	return nil
}
