package sigma

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// Detection is a rule's search identifiers and its condition.
type Detection struct {
	Selections map[string]*Selection
	// Names are the search identifiers in file order.
	Names []string
	// Conditions are or-ed (a condition may be a list).
	Conditions []cond
	node       *yaml.Node
}

// Selection is one search identifier: groups or-ed, the items of a group
// and-ed (a map is one group; a list of maps, one group each).
type Selection struct {
	Name   string
	Groups [][]*Item
}

// Item is one field (or keyword) test: field|mod|mod: values.
type Item struct {
	// Field is the Sigma field name; "" for keywords.
	Field string
	// Fields are the cordon fields it reads, once a pipeline has mapped
	// it: any of them may hold the value.
	Fields []string
	Mods   []string
	Values []Value
	// exact marks an item a pipeline added (add_condition): its field is
	// cordon's and its values are matched as they are, case and all.
	exact bool
	node  *yaml.Node
}

// Value is one value of an item.
type Value struct {
	S    string
	Null bool
	node *yaml.Node
}

func (it *Item) has(mod string) bool {
	for _, m := range it.Mods {
		if m == mod {
			return true
		}
	}
	return false
}

func parseDetection(f *refuser, n *yaml.Node) (*Detection, *Refusal) {
	if n.Kind != yaml.MappingNode {
		return nil, f.at(n, "detection is a mapping of search identifiers and a condition")
	}
	d := &Detection{Selections: map[string]*Selection{}, node: n}
	var condNode *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "condition":
			condNode = v
			continue
		case "timeframe":
			return nil, f.at(k, "timeframe belongs to the old aggregation syntax; write a correlation rule instead")
		}
		s, ref := parseSelection(f, k.Value, v)
		if ref != nil {
			return nil, ref
		}
		d.Selections[k.Value] = s
		d.Names = append(d.Names, k.Value)
	}
	if condNode == nil {
		return nil, f.at(n, "detection has no condition")
	}
	var conds []*yaml.Node
	switch condNode.Kind {
	case yaml.ScalarNode:
		conds = []*yaml.Node{condNode}
	case yaml.SequenceNode:
		conds = condNode.Content
	default:
		return nil, f.at(condNode, "condition is a string or a list of strings")
	}
	for _, c := range conds {
		if c.Kind != yaml.ScalarNode {
			return nil, f.at(c, "condition is a string or a list of strings")
		}
		expr, ref := parseCondition(f, c, d)
		if ref != nil {
			return nil, ref
		}
		d.Conditions = append(d.Conditions, expr)
	}
	return d, nil
}

func parseSelection(f *refuser, name string, n *yaml.Node) (*Selection, *Refusal) {
	s := &Selection{Name: name}
	switch n.Kind {
	case yaml.MappingNode:
		g, ref := parseGroup(f, n)
		if ref != nil {
			return nil, ref
		}
		s.Groups = [][]*Item{g}
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return nil, f.at(n, "search identifier %q is an empty list", name)
		}
		if n.Content[0].Kind == yaml.MappingNode {
			for _, c := range n.Content {
				if c.Kind != yaml.MappingNode {
					return nil, f.at(c, "search identifier %q mixes maps and plain values", name)
				}
				g, ref := parseGroup(f, c)
				if ref != nil {
					return nil, ref
				}
				s.Groups = append(s.Groups, g)
			}
			break
		}
		it := &Item{node: n}
		for _, c := range n.Content {
			v, ref := parseValue(f, c)
			if ref != nil {
				return nil, ref
			}
			it.Values = append(it.Values, v)
		}
		if ref := checkItem(f, it); ref != nil {
			return nil, ref
		}
		s.Groups = [][]*Item{{it}}
	case yaml.ScalarNode:
		v, ref := parseValue(f, n)
		if ref != nil {
			return nil, ref
		}
		s.Groups = [][]*Item{{{Values: []Value{v}, node: n}}}
	default:
		return nil, f.at(n, "search identifier %q: want a map, a list of maps or a list of values", name)
	}
	return s, nil
}

func parseGroup(f *refuser, n *yaml.Node) ([]*Item, *Refusal) {
	var g []*Item
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		parts := strings.Split(k.Value, "|")
		it := &Item{Field: parts[0], Mods: parts[1:], node: k}
		switch v.Kind {
		case yaml.ScalarNode:
			val, ref := parseValue(f, v)
			if ref != nil {
				return nil, ref
			}
			it.Values = []Value{val}
		case yaml.SequenceNode:
			if len(v.Content) == 0 {
				return nil, f.at(v, "%s: an empty list of values matches nothing; write the values, or leave the field out", k.Value)
			}
			for _, c := range v.Content {
				val, ref := parseValue(f, c)
				if ref != nil {
					return nil, ref
				}
				if val.Null {
					return nil, f.at(c, "%s: null cannot be one of a list of values (the specification puts it in a selection of its own)", k.Value)
				}
				it.Values = append(it.Values, val)
			}
		default:
			return nil, f.at(v, "%s: want a value or a list of values, not a map", k.Value)
		}
		if ref := checkItem(f, it); ref != nil {
			return nil, ref
		}
		g = append(g, it)
	}
	if len(g) == 0 {
		return nil, f.at(n, "an empty map matches every event; say what to match")
	}
	return g, nil
}

func parseValue(f *refuser, n *yaml.Node) (Value, *Refusal) {
	if n.Kind != yaml.ScalarNode {
		return Value{}, f.at(n, "want a plain value, not a list or a map")
	}
	return Value{S: n.Value, Null: n.Tag == "!!null", node: n}, nil
}
