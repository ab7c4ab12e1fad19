package sigma

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"gopkg.in/yaml.v3"
)

// A chain is a correlation that names another correlation: each match
// (finding) of the named one is one event of the chain, at its end. What
// such an event holds is its group: the values of the named
// correlation's group-by, and nothing else. That is what pySigma's
// backends give a chained correlation too: it searches the named one's
// aggregation, whose rows are its group-by fields and the backend's own
// count, which a Sigma rule has no name for.
//
// So temporal, temporal_ordered and event_count chains group by the
// named correlation's group-by; value_count and the metric correlations
// read one of its group-by fields (or aliases), and group by the others.

// chainRefusal says why correlation r cannot name correlation m (as
// name, at the rules entry at); nil when it can.
func chainRefusal(f *refuser, at *yaml.Node, name string, r, m *Rule) *Refusal {
	c, mc := r.Correlation, m.Correlation
	if !fieldType(c.Type) {
		if strings.Join(mc.GroupBy, ",") != strings.Join(c.GroupBy, ",") {
			return f.at(at, "names correlation %q, grouped by %s, not by %s as this one is: a chain groups alike", name,
				strings.Join(mc.GroupBy, ", "), strings.Join(c.GroupBy, ", "))
		}
		return nil
	}
	field := c.fieldNode()
	switch {
	case !slices.Contains(mc.GroupBy, c.Field):
		return f.at(field, "condition field %q: a match of correlation %q holds only the values of its group-by (%s), so a %s over it reads one of those and groups by the others",
			c.Field, name, strings.Join(mc.GroupBy, ", "), c.Type)
	case slices.Contains(c.GroupBy, c.Field):
		return f.at(field, "condition field %q is also a group-by of this correlation: each group would hold one value of it; group by %s alone",
			c.Field, strings.Join(others(mc.GroupBy, c.Field), ", "))
	}
	want := others(mc.GroupBy, c.Field)
	got := slices.Clone(c.GroupBy)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		return f.at(at, "names correlation %q, grouped by %s: a %s over it groups by that group-by but its field %s (%s), not by %s",
			name, strings.Join(mc.GroupBy, ", "), c.Type, c.Field, strings.Join(others(mc.GroupBy, c.Field), ", "), strings.Join(c.GroupBy, ", "))
	}
	return nil
}

// fieldNode is where the condition names its field.
func (c *Correlation) fieldNode() *yaml.Node {
	n := c.nodes["condition"]
	for i := 0; n != nil && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "field" {
			return n.Content[i+1]
		}
	}
	return n
}

// others is names without name.
func others(names []string, name string) []string {
	var out []string
	for _, n := range names {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}

// chainField is the cordon field a value_count or metric chain's field
// is in the events of the rules beneath the correlations it names (the
// first, for the engine's Field): every one must be a number for a
// metric.
func chainField(f *refuser, r *Rule, members []member) (string, *Refusal) {
	c := r.Correlation
	var out string
	for _, m := range members {
		if m.corr == nil {
			continue
		}
		for _, held := range heldIn(m, c.Field) {
			fd, _ := evidence.LookupField(held)
			if metricTypes[c.Type] && fd.Type() != evidence.FieldNumber && fd.Type() != evidence.FieldInteger {
				return "", f.at(c.fieldNode(), "condition field %q of correlation %q is cordon's %s, which is not a number, in the events of some of its rules",
					c.Field, m.rule.ref(), held)
			}
			if out == "" {
				out = held
			}
		}
	}
	return out, nil
}

// aliasedChain refuses an alias that names a correlation: its matches
// come grouped by its own group-by, and hold no other field.
func aliasedChain(f *refuser, c *Correlation, members []member) *Refusal {
	for _, m := range members {
		if m.corr == nil {
			continue
		}
		for _, alias := range sortedNames(c.Aliases) {
			for _, k := range []string{m.rule.Name, m.rule.ID} {
				if _, ok := c.Aliases[alias][k]; ok && k != "" {
					return f.at(aliasNode(c.nodes["aliases"], alias, k), "alias %q names a field for correlation %q, whose matches hold only its own group-by: name the alias in its group-by instead", alias, k)
				}
			}
		}
	}
	return nil
}

// aliasNode is where aliases (the node) name rule's field for alias.
func aliasNode(n *yaml.Node, alias, rule string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if m := n.Content[i+1]; n.Content[i].Value == alias {
			for j := 0; j+1 < len(m.Content); j += 2 {
				if m.Content[j].Value == rule {
					return m.Content[j]
				}
			}
		}
	}
	return n
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// writeKey writes name=value, the value quoted when it holds what
// separates the pairs (or starts with a quote), so that splitKey reads
// it back.
func writeKey(b *strings.Builder, i int, name, value string) {
	if i > 0 {
		b.WriteString(", ")
	}
	b.WriteString(name + "=")
	if strings.Contains(value, ", ") || strings.HasPrefix(value, `"`) {
		value = strconv.Quote(value)
	}
	b.WriteString(value)
}

// splitKey reads the values of a group that writeKey wrote with names.
func splitKey(names []string, g string) ([]string, bool) {
	vals := make([]string, len(names))
	for i, n := range names {
		if i > 0 {
			var ok bool
			if g, ok = strings.CutPrefix(g, ", "); !ok {
				return nil, false
			}
		}
		var ok bool
		if g, ok = strings.CutPrefix(g, n+"="); !ok {
			return nil, false
		}
		if strings.HasPrefix(g, `"`) {
			q, err := strconv.QuotedPrefix(g)
			if err != nil {
				return nil, false
			}
			vals[i], _ = strconv.Unquote(q)
			g = g[len(q):]
			continue
		}
		end := strings.Index(g, ", ")
		if end < 0 {
			end = len(g)
		}
		vals[i], g = g[:end], g[end:]
	}
	return vals, g == ""
}

// Regroup is the group, in this correlation, of a match of group g of
// the correlation its step names, and the value it holds of the field a
// value_count or metric chain reads (detect.Regrouper). Other chains
// group alike: g is theirs as it is.
func (k *groupKeys) Regroup(step int, g string) (string, string, bool) {
	if k.field == "" {
		return g, "", true
	}
	if step >= len(k.inner) {
		return "", "", false
	}
	vals, ok := splitKey(k.inner[step], g)
	if !ok {
		return "", "", false
	}
	byName := map[string]string{}
	for i, n := range k.inner[step] {
		byName[n] = vals[i]
	}
	var b strings.Builder
	for i, n := range k.names {
		writeKey(&b, i, n, byName[n])
	}
	return b.String(), byName[k.field], true
}
