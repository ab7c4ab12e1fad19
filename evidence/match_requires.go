package evidence

import "slices"

// Requires reports the values a keyword field must hold for an event to
// match the query: ok is false when the query can match whatever the
// field holds. A pass asks it once per query, so that an event is matched
// only against the queries its kind allows (an exact term is compared as
// the matcher compares it: a case-folded term is not read as a value).
func (m *Matcher) Requires(field string) (values []string, ok bool) {
	return requires(m.query, field)
}

func requires(q Query, field string) ([]string, bool) {
	switch q.op {
	case OpNone:
		return []string{}, true
	case OpTerm:
		if q.field == field && !q.fold {
			if f, ok := LookupField(field); ok && f.kind == kwField {
				return []string{q.value}, true
			}
		}
	case OpAnd:
		var out []string
		found := false
		for _, s := range q.subs {
			vs, ok := requires(s, field)
			if !ok {
				continue
			}
			if !found {
				out, found = slices.Clone(vs), true
				continue
			}
			out = slices.DeleteFunc(out, func(v string) bool { return !slices.Contains(vs, v) })
		}
		return out, found
	case OpOr:
		var out []string
		for _, s := range q.subs {
			vs, ok := requires(s, field)
			if !ok {
				return nil, false
			}
			for _, v := range vs {
				if !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
		}
		return out, true
	}
	return nil, false
}
