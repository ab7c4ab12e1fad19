package evidence

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateQuery(t *testing.T) {
	for _, c := range []struct {
		q, want string // want: "" when valid, else a part of the error
	}{
		{"", ""},
		{"agent:agent-21 +kind:proc_exec", ""},
		{`+credential:"px-s305" -kind:tool_result`, ""},
		{`+credential:"x\" +agent:*"`, ""},
		{`time:>="2026-09-02T14:21:03Z"`, ""},
		{"bytes_out:>1000000", ""},
		{"+cmdline:/nohup|crontab/", ""},
		{"nohup", ""},
		{`agent:"unclosed`, "unterminated quote"},
		{"+kind:", "syntax error"},
		{"credentail:px-s305", `unknown field "credentail"`},
		{"+kind:proc_exec -contaner:abc", `unknown field "contaner"`},
	} {
		err := ValidateQuery(c.q)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("ValidateQuery(%q) = %v, want nil", c.q, err)
		case c.want != "" && err == nil:
			t.Errorf("ValidateQuery(%q) = nil, want an error containing %q", c.q, c.want)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("ValidateQuery(%q) = %v, want it to contain %q", c.q, err, c.want)
		case c.want != "" && !errors.Is(err, ErrQuery):
			t.Errorf("ValidateQuery(%q) = %v, does not wrap ErrQuery", c.q, err)
		}
	}
}
