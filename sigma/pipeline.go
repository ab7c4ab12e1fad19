package sigma

import (
	_ "embed"
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// Pipeline is the subset of a pySigma processing pipeline cordon reads:
// field_name_mapping and add_condition transformations, each applied to
// the rules whose log source its rule_conditions name.
type Pipeline struct {
	Name            string
	File            string
	Transformations []Transformation
}

// Transformation is one step of a pipeline.
type Transformation struct {
	ID   string
	Type string // field_name_mapping or add_condition
	// Mapping is field_name_mapping's: Sigma field -> cordon fields (any
	// of them may hold the value).
	Mapping map[string][]string
	// Conditions are add_condition's: cordon field -> values (any), and-ed
	// with the rule's condition.
	Conditions []Condition
	// Logsources are the rule_conditions (of type logsource); none means
	// every rule. Or-ed when RuleCondOp is "or", else and-ed.
	Logsources []Logsource
	RuleCondOp string
	Line       int
}

// Condition is one field of an add_condition.
type Condition struct {
	Field  string
	Values []string
}

//go:embed cordon-pipeline.yml
var builtinPipeline []byte

// Builtin returns the pipeline for the events cordon reads (Squid and
// Envoy proxy logs, Falco and Tetragon process and file events, cordon's
// ledger): sigma/cordon-pipeline.yml.
func Builtin() (*Pipeline, error) {
	return ParsePipeline("sigma/cordon-pipeline.yml", builtinPipeline)
}

// LoadPipeline reads a pipeline file.
func LoadPipeline(file string) (*Pipeline, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("sigma pipeline: %w", err)
	}
	return ParsePipeline(file, data)
}

// ParsePipeline reads a pipeline. A transformation or a rule condition
// cordon does not run refuses the whole pipeline: applying part of it
// would map rules otherwise than their authors meant.
func ParsePipeline(file string, data []byte) (*Pipeline, error) {
	f := &refuser{file: file}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Refusal{File: file, Line: 1, Col: 1, Reason: "pipeline is not YAML: " + err.Error()}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, f.at(&doc, "a pipeline is a mapping with name and transformations")
	}
	root := doc.Content[0]
	p := &Pipeline{File: file}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "name":
			p.Name = v.Value
		case "priority", "allowed_backends", "vars":
		case "transformations":
			if v.Kind != yaml.SequenceNode {
				return nil, f.at(v, "transformations is a list")
			}
			for _, t := range v.Content {
				tr, err := parseTransformation(f, t)
				if err != nil {
					return nil, err
				}
				p.Transformations = append(p.Transformations, tr)
			}
		case "postprocessing", "finalizers":
			if len(v.Content) > 0 {
				return nil, f.at(k, "%s shape a backend's query text; cordon runs rules, not query text, and does not read them", k.Value)
			}
		default:
			return nil, f.at(k, "unknown pipeline key %q", k.Value)
		}
	}
	return p, nil
}

func parseTransformation(f *refuser, n *yaml.Node) (Transformation, error) {
	if n.Kind != yaml.MappingNode {
		return Transformation{}, f.at(n, "a transformation is a mapping")
	}
	t := Transformation{Line: n.Line}
	var mapping, conds *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "id":
			t.ID = v.Value
		case "type":
			t.Type = v.Value
			if v.Value != "field_name_mapping" && v.Value != "add_condition" {
				return t, f.at(v, "transformation type %q is not supported (cordon reads field_name_mapping and add_condition)", v.Value)
			}
		case "mapping":
			mapping = v
		case "conditions":
			conds = v
		case "rule_conditions":
			if v.Kind != yaml.SequenceNode {
				return t, f.at(v, "rule_conditions is a list")
			}
			for _, c := range v.Content {
				ls, err := parseRuleCondition(f, c)
				if err != nil {
					return t, err
				}
				t.Logsources = append(t.Logsources, ls)
			}
		case "rule_cond_op":
			if v.Value != "and" && v.Value != "or" {
				return t, f.at(v, "rule_cond_op %q: want and or or", v.Value)
			}
			t.RuleCondOp = v.Value
		case "priority":
		default:
			// detection_item_conditions, field_name_conditions, rule_cond_expr,
			// template, ...: each narrows or changes what the step does
			return t, f.at(k, "transformation key %q is not supported", k.Value)
		}
	}
	switch t.Type {
	case "":
		return t, f.at(n, "transformation has no type")
	case "field_name_mapping":
		if mapping == nil || mapping.Kind != yaml.MappingNode {
			return t, f.at(n, "field_name_mapping needs a mapping of Sigma field to cordon field(s)")
		}
		t.Mapping = map[string][]string{}
		for i := 0; i+1 < len(mapping.Content); i += 2 {
			k, v := mapping.Content[i], mapping.Content[i+1]
			to := scalars(v)
			if len(to) == 0 {
				return t, f.at(v, "field %q maps to no field", k.Value)
			}
			for _, name := range to {
				if !cordonField(name) {
					return t, f.at(v, "field %q maps to %q, which is not a cordon event field (docs/sigma.md lists them)", k.Value, name)
				}
			}
			t.Mapping[k.Value] = to
		}
	case "add_condition":
		if conds == nil || conds.Kind != yaml.MappingNode {
			return t, f.at(n, "add_condition needs conditions: a mapping of cordon field to value(s)")
		}
		for i := 0; i+1 < len(conds.Content); i += 2 {
			k, v := conds.Content[i], conds.Content[i+1]
			if !cordonField(k.Value) {
				return t, f.at(k, "condition field %q is not a cordon event field", k.Value)
			}
			t.Conditions = append(t.Conditions, Condition{Field: k.Value, Values: scalars(v)})
		}
	}
	return t, nil
}

func parseRuleCondition(f *refuser, n *yaml.Node) (Logsource, error) {
	if n.Kind != yaml.MappingNode {
		return Logsource{}, f.at(n, "a rule condition is a mapping")
	}
	if typ := valueOf(n, "type"); typ == n || typ.Value != "logsource" {
		return Logsource{}, f.at(typ, "rule condition type %q is not supported (cordon reads logsource)", typ.Value)
	}
	ls := Logsource{node: n}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "type":
		case "category":
			ls.Category = strings.ToLower(v.Value)
		case "product":
			ls.Product = strings.ToLower(v.Value)
		case "service":
			ls.Service = strings.ToLower(v.Value)
		default:
			return Logsource{}, f.at(k, "logsource condition key %q is not supported", k.Value)
		}
	}
	return ls, nil
}

// applies reports whether the transformation applies to a rule's log
// source: each field a condition names equals the rule's.
func (t *Transformation) applies(ls Logsource) bool {
	if len(t.Logsources) == 0 {
		return true
	}
	or := t.RuleCondOp == "or"
	for _, c := range t.Logsources {
		ok := (c.Category == "" || c.Category == ls.Category) &&
			(c.Product == "" || c.Product == ls.Product) &&
			(c.Service == "" || c.Service == ls.Service)
		if ok && or {
			return true
		}
		if !ok && !or {
			return false
		}
	}
	return !or
}

// apply maps a detection rule's fields and adds the pipeline's conditions.
// It returns the conditions added (and-ed with the rule's condition) and
// whether any transformation named the rule's log source: a rule no
// add_condition serves has no cordon events to run on.
func (p *Pipeline) apply(r *Rule) (added []*Item, served bool) {
	for i := range p.Transformations {
		t := &p.Transformations[i]
		if !t.applies(r.Logsource) {
			continue
		}
		switch t.Type {
		case "add_condition":
			served = true
			for _, c := range t.Conditions {
				vals := make([]Value, len(c.Values))
				for j, v := range c.Values {
					vals[j] = Value{S: v}
				}
				added = append(added, &Item{Field: c.Field, Fields: []string{c.Field}, Values: vals, exact: true})
			}
		case "field_name_mapping":
			r.Detection.eachItem(func(it *Item) {
				if it.Fields == nil && it.Field != "" {
					if to, ok := t.Mapping[it.Field]; ok {
						it.Fields = to
					}
				}
				if it.has("fieldref") {
					for j, v := range it.Values {
						if to, ok := t.Mapping[v.S]; ok && len(to) == 1 {
							it.Values[j].S = to[0]
						}
					}
				}
			})
		}
	}
	return added, served
}

func (d *Detection) eachItem(fn func(*Item)) {
	for _, n := range d.Names {
		for _, g := range d.Selections[n].Groups {
			for _, it := range g {
				fn(it)
			}
		}
	}
}
