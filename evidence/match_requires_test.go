package evidence

import (
	"slices"
	"testing"
)

// TestRequiresAgreesWithTheMatcher: the kinds Requires names for a query
// are the only kinds an event can hold and match it; a query it says
// nothing about matches events of several kinds.
func TestRequiresAgreesWithTheMatcher(t *testing.T) {
	kinds := []string{KindToolCall, KindToolResult, KindNetRequest, KindProcExec, KindFileWrite, KindCredAccess, "other"}
	cases := []struct {
		q    string
		want []string // nil: any kind
	}{
		{"kind:tool_call", []string{KindToolCall}},
		{"kind:(tool_call OR net_request)", []string{KindToolCall, KindNetRequest}},
		{"kind:tool_call AND decision:deny", []string{KindToolCall}},
		{"kind:(tool_call OR net_request) AND kind:net_request", []string{KindNetRequest}},
		{"kind:tool_call OR decision:deny", nil},
		{"-kind:tool_call", nil},
		{"decision:deny -kind:tool_result", nil},
		{"kind:(summary OR cred_access) OR bytes_out:>=1048576", nil},
		{"kind:tool_call AND kind:net_request", []string{}},
		{"kind:/tool_.*/", nil},
	}
	for _, c := range cases {
		q, err := Parse(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		m, err := Compile(q)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := m.Requires("kind")
		if c.want == nil {
			if ok {
				t.Errorf("%s: requires %v, want any kind", c.q, got)
			}
			continue
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.want))
		if !ok || !slices.Equal(got, want) {
			t.Errorf("%s: requires %v (%v), want %v", c.q, got, ok, want)
		}
		// no event of another kind matches, whatever else it holds
		for _, k := range kinds {
			ev := Event{Kind: k, Decision: DecisionDeny, BytesOut: 2 << 20}
			if m.Match(&ev) && !slices.Contains(got, k) {
				t.Errorf("%s: an event of kind %s matches, outside %v", c.q, k, got)
			}
		}
	}
}
