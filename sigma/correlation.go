package sigma

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"gopkg.in/yaml.v3"
)

// Correlation is a correlation rule's section.
type Correlation struct {
	Type     string
	Rules    []string
	GroupBy  []string
	Timespan time.Duration
	// Field is value_count's (the Sigma field whose distinct values
	// count) and the metric correlations' (the numeric field they add up).
	Field string
	// Percentile is value_percentile's condition percentile.
	Percentile float64
	Condition  detect.Condition
	// HasCondition is set when the rule states one.
	HasCondition bool
	// Generate keeps the referenced rules' own findings too (the
	// specification's default is not to).
	Generate bool
	// Aliases are alias -> rule name -> field: a group-by name whose
	// value each rule's events hold in a field of their own.
	Aliases map[string]map[string]string
	node    *yaml.Node
	nodes   map[string]*yaml.Node
}

// metricTypes are the v2.1 metric correlation types: the engine's of the
// same name.
var metricTypes = map[string]bool{"value_sum": true, "value_avg": true, "value_percentile": true, "value_median": true}

// fieldTypes are the correlation types whose condition names a field.
func fieldType(typ string) bool { return typ == "value_count" || metricTypes[typ] }

func parseCorrelation(f *refuser, doc, n *yaml.Node) (*Correlation, *Refusal) {
	if n.Kind != yaml.MappingNode {
		return nil, f.at(n, "correlation is a mapping of type, rules, group-by, timespan, condition")
	}
	c := &Correlation{node: n, nodes: map[string]*yaml.Node{}}
	if g := valueOf(doc, "generate"); g != doc {
		c.Generate = g.Value == "true"
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		c.nodes[k.Value] = v
		switch k.Value {
		case "type":
			c.Type = v.Value
		case "rules":
			c.Rules = scalars(v)
		case "group-by":
			c.GroupBy = scalars(v)
		case "timespan":
			d, ok := timespan(v.Value)
			if !ok {
				return nil, f.at(v, "timespan %q: want a number and s, m, h or d (90m)", v.Value)
			}
			c.Timespan = d
		case "generate":
			c.Generate = v.Value == "true"
		case "aliases":
			a, ref := parseAliases(f, v)
			if ref != nil {
				return nil, ref
			}
			c.Aliases = a
		case "condition":
			if v.Kind != yaml.MappingNode {
				return nil, f.at(v, "condition is a mapping like {gte: 5}")
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				ck, cv := v.Content[j], v.Content[j+1]
				if ck.Value == "field" {
					if cv.Kind != yaml.ScalarNode {
						return nil, f.at(cv, "condition field: cordon counts the values of one field")
					}
					c.Field = cv.Value
					continue
				}
				x, err := strconv.ParseFloat(cv.Value, 64)
				if err != nil {
					return nil, f.at(cv, "condition %s: %q is not a number", ck.Value, cv.Value)
				}
				if ck.Value == "percentile" {
					if x <= 0 || x > 100 {
						return nil, f.at(cv, "condition percentile %v: want a number above 0 and at most 100", x)
					}
					c.Percentile = x
					continue
				}
				c.HasCondition = true
				switch ck.Value {
				case "gt":
					c.Condition.Gt = &x
				case "gte":
					c.Condition.Gte = &x
				case "lt":
					c.Condition.Lt = &x
				case "lte":
					c.Condition.Lte = &x
				case "eq":
					c.Condition.Gte, c.Condition.Lte = &x, detect.Num(x)
				case "neq":
					// judged on the timespan's final count (detect/count.go)
					c.Condition.Neq = &x
					c.nodes["neq"] = ck
				default:
					return nil, f.at(ck, "condition %q: want gt, gte, lt, lte, eq or neq", ck.Value)
				}
			}
		}
	}
	typeNode := c.nodes["type"]
	if typeNode == nil {
		typeNode = n
	}
	switch {
	case c.Type != "event_count" && c.Type != "temporal" && c.Type != "temporal_ordered" && !fieldType(c.Type):
		return nil, f.at(typeNode, "correlation type %q is not one of event_count, value_count, temporal, temporal_ordered, value_sum, value_avg, value_percentile, value_median", c.Type)
	case len(c.Rules) == 0:
		return nil, f.at(n, "correlation names no rules")
	case c.Timespan <= 0:
		return nil, f.at(n, "correlation has no timespan")
	case len(c.GroupBy) == 0:
		return nil, f.at(n, "correlation has no group-by: cordon correlates events per value of one field (agent, user, host ...)")
	case (c.Type == "event_count" || fieldType(c.Type)) && !c.HasCondition:
		return nil, f.at(n, "%s needs a condition", c.Type)
	case fieldType(c.Type) && c.Field == "":
		return nil, f.at(c.nodes["condition"], "%s needs condition field: the field whose values it reads", c.Type)
	case !fieldType(c.Type) && c.Field != "":
		return nil, f.at(c.nodes["condition"], "condition field belongs to value_count and the metric correlations")
	case (c.Type == "value_percentile") != (c.Percentile != 0):
		return nil, f.at(c.nodes["condition"], "condition percentile belongs to value_percentile, which needs it")
	case (c.Type == "temporal" || c.Type == "temporal_ordered") && c.Condition.Neq != nil:
		return nil, f.at(c.nodes["neq"], "condition neq on %s: cordon takes neq on event_count, value_count and the metric correlations", c.Type)
	case (c.Type == "temporal" || c.Type == "temporal_ordered") && len(c.Rules) < 2:
		return nil, f.at(c.nodes["rules"], "%s needs two or more rules", c.Type)
	}
	return c, nil
}

// timespan reads 30s, 5m, 1h, 2d.
func timespan(s string) (time.Duration, bool) {
	if len(s) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil || n <= 0 {
		return 0, false
	}
	unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}[s[len(s)-1]]
	if unit == 0 {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// member is a rule a correlation names, compiled.
type member struct {
	rule *Rule
	c    compiled
	corr *detect.Rule // a correlation's engine rule (a chain), else nil
}

// compileCorrelation builds the engine rule of a correlation over its
// compiled member rules, mapping its Sigma fields with the pipeline.
func compileCorrelation(r *Rule, members []member, p *Pipeline, chained bool) (detect.Rule, *Refusal) {
	f := &refuser{file: r.File, rule: r.label()}
	c := r.Correlation
	if ref := aliasedChain(f, c, members); ref != nil {
		return detect.Rule{}, ref
	}
	fields, ref := groupFields(f, c, members, p)
	if ref != nil {
		return detect.Rule{}, ref
	}
	groupBy := fields[0][0]
	stepped := c.Type == "temporal" || c.Type == "temporal_ordered"
	var grouper detect.Grouper
	for _, m := range members {
		chained = chained || m.corr != nil
	}
	// a chain's rules group alike, by the keys
	if k := newKeys(c.GroupBy, fields, members, stepped); chained || len(c.GroupBy) > 1 || len(k.fields) > 1 {
		grouper = k
	}
	by := strings.Join(c.GroupBy, ", ")
	sev, _ := severity(r.Level)
	dr := detect.Rule{
		ID: ruleID(r), Title: r.Title, Severity: sev, Phase: phaseOf(r.Tags), Tags: r.Tags, Description: description(r),
		Origin:      fmt.Sprintf("%s:%d", r.File, r.Line),
		Correlation: detect.Correlation{GroupBy: groupBy, Keys: grouper, Window: c.Timespan, Condition: c.Condition},
	}
	head := fmt.Sprintf("Sigma correlation %s (%s, id %s): ", title(r), levelText(r), r.ID)
	switch c.Type {
	case "event_count", "value_count":
		field := "" // an event_count chain reads no field of the matches
		if c.Type == "value_count" {
			field = c.Field
		}
		det, counted := countChain(&dr, grouper, members, field)
		dr.Correlation.Type = detect.EventCount
		dr.Explain = head + "{{count}} " + counted + " by " + by + " {{group}} within {{window}}"
		if c.Type == "value_count" {
			field, ref := countedField(f, r, det, members, p)
			if ref != nil {
				return detect.Rule{}, ref
			}
			dr.Correlation.Type, dr.Correlation.Field = detect.ValueCount, field
			dr.Explain = head + "{{distinct}} distinct " + c.Field + " ({{values}}) by " + by + " {{group}} within {{window}}"
		}
	case "value_sum", "value_avg", "value_percentile", "value_median":
		det, _ := countChain(&dr, grouper, members, c.Field)
		field, ref := countedField(f, r, det, members, p)
		if ref != nil {
			return detect.Rule{}, ref
		}
		dr.Correlation.Type, dr.Correlation.Field, dr.Correlation.Percentile = c.Type, field, c.Percentile
		what := map[string]string{"value_sum": "sum", "value_avg": "mean", "value_median": "median",
			"value_percentile": strconv.FormatFloat(c.Percentile, 'f', -1, 64) + "th percentile"}[c.Type]
		dr.Explain = head + what + " of " + c.Field + " {{value}} by " + by + " {{group}} within {{window}}"
	case "temporal", "temporal_ordered":
		for _, m := range members {
			if m.corr != nil {
				dr.Correlation.Steps = append(dr.Correlation.Steps, detect.Step{Name: m.rule.label(), Rule: m.corr})
				continue
			}
			dr.Correlation.Steps = append(dr.Correlation.Steps, detect.Step{Name: m.rule.label(), Query: m.c.query, Filter: m.c.filter})
		}
		dr.Correlation.Type = detect.Temporal
		dr.Explain = head + "{{steps}} by " + by + " {{group}} within {{window}}"
		switch {
		case c.Type == "temporal_ordered" && c.HasCondition:
			// the condition counts the rules seen in their order
			dr.Correlation.Ordered = true
			dr.Explain = head + "{{steps}}, in order, by " + by + " {{group}} within {{window}}"
		case c.Type == "temporal_ordered":
			dr.Correlation.Type = detect.OrderedSequence
			dr.Explain = head + "{{steps}}, in order, by " + by + " {{group}} within {{window}}"
		}
	}
	if err := dr.Validate(); err != nil {
		return detect.Rule{}, f.at(c.node, "%v", err)
	}
	return dr, nil
}

// union makes a rule's events those of any of the member rules.
func union(dr *detect.Rule, members []member) {
	var fs []pred
	for _, m := range members {
		dr.Query = append(dr.Query, m.c.query)
		fs = append(fs, m.c.filter.p)
	}
	dr.Filter = newFilter(orPred(fs))
	if len(fs) == 1 {
		dr.Filter = members[0].c.filter
	}
}

// countChain makes an event_count's, value_count's or metric
// correlation's events those of its detection rules (det) and the
// matches of the correlations it names (its steps: a chain), whose
// value of field (a value_count's or metric's) keys regroups them by;
// and it says what it counts.
func countChain(dr *detect.Rule, keys detect.Grouper, members []member, field string) (det []member, counted string) {
	var names []string
	for _, m := range members {
		if m.corr == nil {
			det = append(det, m)
			continue
		}
		dr.Correlation.Steps = append(dr.Correlation.Steps, detect.Step{Name: m.rule.label(), Rule: m.corr})
		names = append(names, m.rule.ref())
		if k, ok := keys.(*groupKeys); ok {
			k.inner, k.field = append(k.inner, m.rule.Correlation.GroupBy), field
		}
	}
	if len(det) > 0 {
		union(dr, det)
	}
	switch {
	case names == nil:
		return det, "events"
	case det == nil:
		return det, "matches of " + strings.Join(names, ", ")
	}
	return det, "events and matches of " + strings.Join(names, ", ")
}

// countedField maps a value_count's or metric correlation's field onto
// one cordon field: its detection rules' by their log source, the
// correlations' it names by where their events hold it (chainField).
func countedField(f *refuser, r *Rule, det, members []member, p *Pipeline) (string, *Refusal) {
	c := r.Correlation
	held, ref := chainField(f, r, members)
	if ref != nil || len(det) == 0 {
		return held, ref
	}
	return mapCorrField(f, c.nodes["condition"], c.Field, det, p)
}

// mapCorrField maps a Sigma field a correlation names onto one cordon
// field, the same for every member rule (each by its log source).
func mapCorrField(f *refuser, at *yaml.Node, field string, members []member, p *Pipeline) (string, *Refusal) {
	out := ""
	for _, m := range members {
		got := ""
		if cordonField(field) {
			got = field
		}
		for _, t := range p.Transformations {
			if t.Type == "field_name_mapping" && t.applies(m.rule.Logsource) {
				if to, ok := t.Mapping[field]; ok {
					if len(to) != 1 {
						return "", f.at(at, "field %q maps to several cordon fields (%s); a correlation needs one", field, strings.Join(to, ", "))
					}
					got = to[0]
				}
			}
		}
		if got == "" {
			return "", f.at(at, "field %q is not mapped for logsource %s of rule %q", field, m.rule.Logsource, m.rule.label())
		}
		if out != "" && got != out {
			return "", f.at(at, "field %q is %s in one rule and %s in another; aliases would say so, and are not supported yet", field, out, got)
		}
		out = got
	}
	return out, nil
}
