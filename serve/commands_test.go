package serve

import (
	"strings"
	"testing"
)

func TestCheckCommand(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string // the arguments run, or "refused: TEXT" for a part of the reason
	}{
		{[]string{"findings", "--json"}, "findings --json"},
		{[]string{"findings", "--json", "--json"}, "findings --json"},
		{[]string{"findings"}, "findings"},
		{[]string{"findings", "--agent", "x"}, "refused: not allowed"},
		{[]string{"findings", "x"}, "refused: takes no arguments"},
		{[]string{"search", "--json", "agent:a", "-kind:dns"}, "search --json -- agent:a -kind:dns"},
		{[]string{"search", "curl", "--json"}, "search --json -- curl"},
		{[]string{"search", "--", "--incident", "/etc"}, "search -- --incident /etc"},
		{[]string{"search", "--incident", "/etc", "x"}, "refused: not allowed"},
		{[]string{"search", "--incident=/etc", "x"}, "refused: not allowed"},
		{[]string{"search", "--limit=100000", "x"}, "refused: not allowed"},
		{[]string{"search", "--json"}, "search --json"},
		{[]string{"report"}, "report"},
		{[]string{"report", "--out", "/tmp/r"}, "refused: not allowed"},
		{[]string{"report", "-o", "/tmp/r"}, "refused: not allowed"},
		{[]string{"report", "-o=/tmp/r"}, "refused: not allowed"},
		{[]string{"report", "-"}, "refused: not allowed"},
		{[]string{"report", "x"}, "refused: takes no arguments"},
		{[]string{"report", "--format", "json"}, "report --format=json"},
		{[]string{"report", "--format=html"}, "report --format=html"},
		{[]string{"report", "--format", "pdf"}, "refused: not allowed"},
		{[]string{"report", "--format"}, "refused: needs a value"},
		{[]string{"report", "--format=json", "--format=md"}, "refused: not allowed"},
		{[]string{"findings", "--json=false"}, "refused: not allowed"},
		{[]string{"bash"}, "refused: not available over SSH"},
		{[]string{"note", "hi"}, "refused: not available over SSH"},
		{[]string{"serve"}, "refused: not available over SSH"},
		{nil, "refused: no command"},
	} {
		args, err := checkCommand(DefaultCommands(), tc.argv)
		got := strings.Join(args, " ")
		if err != nil {
			got = "refused: " + err.Error()
		}
		if strings.HasPrefix(tc.want, "refused: ") {
			if !strings.HasPrefix(got, "refused: ") || !strings.Contains(got, strings.TrimPrefix(tc.want, "refused: ")) {
				t.Errorf("%q: %q, want %q", tc.argv, got, tc.want)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.argv, got, tc.want)
		}
	}
}
