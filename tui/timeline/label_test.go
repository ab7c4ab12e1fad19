package timeline

import "testing"

func TestLabelledText(t *testing.T) {
	l := labelled{query: "id:(a OR b)", label: "finding x · agent-7 · 2 events"}
	for _, tc := range []struct {
		name, q, want string
	}{
		{"the labelled query", "id:(a OR b)", "finding x · agent-7 · 2 events"},
		{"a clause added", "id:(a OR b) AND source:proxy", "finding x · agent-7 · 2 events AND source:proxy"},
		{"another query", "agent:agent-3", "agent:agent-3"},
		{"a longer id list is not the finding", "id:(a OR b OR c)", "id:(a OR b OR c)"},
		{"cleared", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := l.text(tc.q); got != tc.want {
				t.Errorf("text(%q) = %q, want %q", tc.q, got, tc.want)
			}
		})
	}
	ls := labels{filter: l, search: labelled{query: "curl", label: "related"}}
	if k := ls.keep("", "curl"); k.filter != (labelled{}) || k.search.label != "related" {
		t.Errorf("keep after clearing the filter: %+v", k)
	}
	if k := ls.keep("id:(a OR b) AND x:y", "nohup"); k.filter.label == "" || k.search != (labelled{}) {
		t.Errorf("keep after a facet and a new search: %+v", k)
	}
}
