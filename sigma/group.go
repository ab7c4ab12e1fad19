package sigma

import (
	"slices"
	"strings"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"gopkg.in/yaml.v3"
)

// parseAliases reads a correlation's aliases: alias -> rule name -> the
// Sigma field that rule's events hold the alias's value in.
func parseAliases(f *refuser, v *yaml.Node) (map[string]map[string]string, *Refusal) {
	if v.Kind != yaml.MappingNode {
		return nil, f.at(v, "aliases is a mapping of alias -> {rule name: field}")
	}
	out := map[string]map[string]string{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		name, m := v.Content[i], v.Content[i+1]
		if m.Kind != yaml.MappingNode {
			return nil, f.at(m, "alias %q is a mapping of rule name -> field", name.Value)
		}
		out[name.Value] = map[string]string{}
		for j := 0; j+1 < len(m.Content); j += 2 {
			if m.Content[j+1].Kind != yaml.ScalarNode {
				return nil, f.at(m.Content[j+1], "alias %q: rule %q names one field", name.Value, m.Content[j].Value)
			}
			out[name.Value][m.Content[j].Value] = m.Content[j+1].Value
		}
	}
	return out, nil
}

// groupFields maps a correlation's group-by onto cordon fields for each
// member rule: fields[m][i] is where member m's events hold the i-th
// group-by value (an alias resolved by the member's name or id first).
func groupFields(f *refuser, c *Correlation, members []member, p *Pipeline) ([][]string, *Refusal) {
	at := c.nodes["group-by"]
	fields := make([][]string, len(members))
	for i, m := range members {
		if m.corr != nil {
			continue // a chained correlation's findings come grouped
		}
		for _, gb := range c.GroupBy {
			sigmaField := gb
			if alias, ok := c.Aliases[gb]; ok {
				sigmaField = ""
				for _, k := range []string{m.rule.Name, m.rule.ID} {
					if v, ok := alias[k]; ok && k != "" && sigmaField == "" {
						sigmaField = v
					}
				}
				if sigmaField == "" {
					return nil, f.at(c.nodes["aliases"], "alias %q names no field for rule %q", gb, m.rule.ref())
				}
			}
			got, ref := mapCorrField(f, at, sigmaField, []member{m}, p)
			if ref != nil {
				return nil, ref
			}
			if fd, ok := evidence.LookupField(got); !ok || !fd.Groupable() {
				return nil, f.at(at, "group-by %s is cordon's %s, which events cannot be grouped by (analysed text or derived)", gb, got)
			}
			fields[i] = append(fields[i], got)
		}
	}
	// a chained correlation's step reads no fields: give it another
	// step's, or the fields the first named correlation's events hold
	// the names in when every step is one
	var some []string
	for _, fs := range fields {
		if fs != nil {
			some = fs
			break
		}
	}
	if some == nil {
		for _, gb := range c.GroupBy {
			held := slices.Concat(heldIn(members[0], gb), []string{members[0].corr.Correlation.GroupBy})
			some = append(some, held[0])
		}
	}
	for i := range fields {
		if fields[i] == nil {
			fields[i] = some
		}
	}
	return fields, nil
}

// groupKeys groups events by several fields, or by fields that differ from
// one member rule to another: the engine's Correlation.Keys.
type groupKeys struct {
	names  []string   // the group-by as the rule writes it
	fields [][]string // per member: the cordon field of each name
	// filters tell which member an event of a union (one stream) is:
	// the first whose filter takes it. nil when every member's fields
	// are the same, or the members are steps (the stream says).
	filters []*Filter
	text    string
	// held are, per name, the cordon fields the events of every
	// detection rule beneath hold it in (a chain's too): what a chain
	// reading one of the names reads.
	held map[string][]string
	// inner and field regroup a value_count or metric chain's matches
	// (Regroup): per step, the group-by of the correlation it names, and
	// the name whose value it counts.
	inner [][]string
	field string
}

func newKeys(names []string, fields [][]string, members []member, stepped bool) *groupKeys {
	k := &groupKeys{names: names, fields: fields, held: map[string][]string{}}
	for i, m := range members {
		for j, n := range names {
			held := fields[i][j : j+1]
			if m.corr != nil {
				held = heldIn(m, n)
			}
			for _, h := range held {
				if !slices.Contains(k.held[n], h) {
					k.held[n] = append(k.held[n], h)
				}
			}
		}
	}
	same := true
	for _, fs := range fields[1:] {
		same = same && strings.Join(fs, ",") == strings.Join(fields[0], ",")
	}
	if same {
		k.fields = fields[:1]
	} else if !stepped {
		for _, m := range members {
			k.filters = append(k.filters, m.c.filter)
		}
	}
	var b strings.Builder
	for i, n := range names {
		b.WriteString(n + "=")
		for j, fs := range k.fields {
			if j > 0 {
				b.WriteByte('|')
			}
			b.WriteString(fs[i])
		}
		b.WriteByte(' ')
	}
	k.text = strings.TrimSpace(b.String())
	return k
}

// heldIn is the cordon fields in which the events beneath a chain's
// named correlation m hold its group-by name n.
func heldIn(m member, n string) []string {
	if k, ok := m.corr.Correlation.Keys.(*groupKeys); ok {
		return k.held[n]
	}
	return nil
}

// Key is "User=alice, ComputerName=web1" from the member's fields; ""
// when one of them has no value (the event is not correlated).
func (k *groupKeys) Key(step int, ev *evidence.Event) string {
	m := 0
	switch {
	case len(k.fields) == 1:
	case k.filters != nil:
		m = -1
		for i, f := range k.filters {
			if f != nil && f.Match(ev) { // nil: a chain's correlation
				m = i
				break
			}
		}
		if m < 0 {
			return ""
		}
	default:
		m = step
	}
	var b strings.Builder
	for i, field := range k.fields[m] {
		vs := fieldReader(field)(ev)
		if len(vs) == 0 || vs[0] == "" {
			return ""
		}
		writeKey(&b, i, k.names[i], vs[0])
	}
	return b.String()
}

// MarshalText is the grouping's canonical text.
func (k *groupKeys) MarshalText() ([]byte, error) { return []byte(k.text), nil }

var _ detect.Grouper = (*groupKeys)(nil)
