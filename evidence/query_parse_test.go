package evidence

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Each form of the syntax, and how it reads: the canonical text spells
// every operator out.
func TestParseForms(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "*"},
		{"*", "*"},
		{"nohup", "nohup"},
		{"agent:agent-7 decision:deny", "agent:agent-7 AND decision:deny"},
		{"+agent:agent-7 +decision:deny", "agent:agent-7 AND decision:deny"},
		{"agent:agent-7 AND decision:deny", "agent:agent-7 AND decision:deny"},
		{"curl OR wget", "curl OR wget"},
		{"kind:proc_exec (cmdline:curl OR cmdline:wget)", "kind:proc_exec AND cmdline:(curl OR wget)"},
		{"kind:proc_exec cmdline:(curl OR wget)", "kind:proc_exec AND cmdline:(curl OR wget)"},
		{"a b OR c", "(a AND b) OR c"},
		{"a (b OR c)", "a AND (b OR c)"},
		{"NOT kind:proc_exec", "NOT kind:proc_exec"},
		{"-kind:proc_exec source:sensor", "NOT kind:proc_exec AND source:sensor"},
		{"NOT (source:ledger OR source:proxy)", "NOT source:(ledger OR proxy)"},
		{"NOT NOT a", "a"},
		{`policy:"Schedule Cron Jobs"`, `policy:"Schedule Cron Jobs"`},
		{`policy:Schedule\ Cron\ Jobs`, `policy:"Schedule Cron Jobs"`},
		{`agent:"agent-7"`, "agent:agent-7"},
		{`"nohup"`, "nohup"},
		{"user:*", "user:*"},
		{"agent:agent*", "agent:agent*"},
		{"user:px-s2?8", "user:px-s2?8"},
		{`dst_host:*.s3.amazonaws.com`, `dst_host:*.s3.amazonaws.com`},
		{"dst_host:HTTPBIN.ORG", "dst_host:httpbin.org"}, // hosts are kept lower case
		{"cmdline:CURL*", "cmdline:curl*"},               // words are indexed lower case
		// enumerations match any case (issue 33): what the tables show
		// upper case is found as typed from them
		{"decision:DENY", "decision:deny"},
		{"kind:Proc_Exec", "kind:proc_exec"},
		{"source:PROX*", "source:prox*"},
		{"severity:Err?r", "severity:err?r"},
		{"decision:/DEN.*/", "decision:/DEN.*/i"},
		{"decision:(DENY OR Error)", "decision:(deny OR error)"},
		{"path:/cron.*/", "path:/cron.*/"},
		{"agent:/AGENT-7/i", "agent:/AGENT-7/i"},
		{"cmdline:/CURL/", "cmdline:/CURL/i"}, // a capital on text means either case
		{`path:/a\/b/`, `path:/a\/b/`},
		{"bytes_out:>1000", "bytes_out:>1000"},
		{"bytes_out:>=1000 bytes_out:<5000", "bytes_out:>=1000 AND bytes_out:<5000"},
		{"bytes_in:<=500", "bytes_in:<=500"},
		{"bytes_out:42", "bytes_out:42"},
		{`time:>="2026-07-21T10:00:00Z"`, `time:>="2026-07-21T10:00:00Z"`},
		{`time:>2026-07-21T10:00:00Z`, `time:>"2026-07-21T10:00:00Z"`},
		{`time:<="2026-07-21T10:00:00Z"`, `time:<="2026-07-21T10:00:00Z"`},
		{"time:<2026-07-21", `time:<"2026-07-21T00:00:00Z"`},
		{"dst_port:443", "dst_port:443"},
		{`tags:cred-class\:cloud-metadata`, `tags:cred-class\:cloud-metadata`},
		{`message:agent\:x`, `message:agent\:x`},
		{`\AND`, `\AND`},
		{"id:(a OR b OR c)", "id:(a OR b OR c)"},
	} {
		q, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := q.String(); got != c.want {
			t.Errorf("Parse(%q) reads %s, want %s", c.in, got, c.want)
		}
		// the canonical text reads back the same
		if back, err := Parse(q.String()); err != nil || !back.Equal(q) {
			t.Errorf("Parse(%q).String() = %s reads back as %s (%v)", c.in, q, back, err)
		}
	}
}

// No silent zero: what would find nothing says so, and how to fix it.
func TestParseRefusesWhatFindsNothing(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"nosuchfield:foo", `unknown field "nosuchfield"`},
		{"AGENT:agent-7", "did you mean agent?"},
		{"agnt:agent-7", "did you mean agent?"},
		{"+(", "without )"},
		{"+", "+ with nothing after it"},
		{"curl -", "- with nothing after it"},
		{"curl AND", "AND with nothing after it"},
		{"AND curl", "AND with nothing before it"},
		{"curl OR", "OR with nothing after it"},
		{"OR curl", "OR with nothing before it"},
		{"NOT", "NOT with nothing after it"},
		{"(curl", "without )"},
		{"curl)", ") without ("},
		{"()", "holds nothing"},
		{"agent:", "has no value"},
		{`agent:"agent-7`, `without a closing "`},
		{"cmdline:/curl", "without a closing /"},
		{"cmdline:/(/", "bad regular expression"},
		{`message:"retry of"`, "write message:retry AND message:of"},
		{"message:...", "holds no word"},
		{"dst_port:>100", "ranges work on bytes_out, bytes_in, duration_ms and time"},
		{"bytes_out:lots", "bytes_out is a number"},
		{"time:2026-07-21", "time takes a range"},
		{"time:>yesterday", "is not a time"},
		{">5", "a range needs a field"},
		{"pid:12.5", "whole number"},
		{"kind:(a OR agent:b)", "write values only"},
	} {
		_, err := Parse(c.in)
		if err == nil || !errors.Is(err, ErrQuery) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an ErrQuery saying %q", c.in, err, c.want)
		}
	}
}

// Built queries print as a person would type them, and escape what the
// evidence holds so that it cannot add syntax.
func TestBuiltQueriesEscapeValues(t *testing.T) {
	for _, c := range []struct {
		q    Query
		want string
	}{
		{Term("agent", `a "b" \c-1`), `agent:"a \"b\" \\c-1"`},
		{Term("agent", "-x:y"), `agent:\-x\:y`},
		{Term("agent", "a*"), `agent:a\*`},
		{Term("agent", "OR"), `agent:\OR`},
		{Term("agent", "(x)"), `agent:\(x\)`},
		{Not(Term("source", "ledger")), "NOT source:ledger"},
		{IDs("a1", "b2"), "id:(a1 OR b2)"},
		{IDs("one"), "id:one"},
		{Terms("kind", "session_start", "session_end"), "kind:(session_start OR session_end)"},
		{And(Term("agent", "a"), Or(Term("kind", "x"), Term("tool", "y"))), "agent:a AND (kind:x OR tool:y)"},
		{Within(time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC), time.Date(2026, 7, 21, 10, 1, 0, 0, time.UTC)),
			`time:>="2026-07-21T10:00:00Z" AND time:<="2026-07-21T10:01:00Z"`},
		{Term("agent", "agent-7").Fold(), "agent:/agent-7/i"},
		{And(), "*"},
		{Or(), "NOT *"},
	} {
		if got := c.q.String(); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
		back, err := Parse(c.q.String())
		if err != nil || !back.Equal(c.q) {
			t.Errorf("%s reads back as %s (%v)", c.q, back, err)
		}
	}
	// a value from the evidence with every special character is one term
	hostile := `x) OR (agent:* "y\ -z AND /re/`
	q, err := Parse(Term("agent", hostile).String())
	if err != nil || q.Op() != OpTerm || q.Value() != hostile {
		t.Errorf("hostile value reads as %s (%v)", q, err)
	}
}

// What changed meaning with the syntax, and what did not.
func TestChanged(t *testing.T) {
	for _, c := range []struct {
		in      string
		changed bool
		old     string
	}{
		{"+agent:agent-7 +decision:deny", false, ""},
		{"agent:agent-7", false, ""},
		{"-source:ledger", false, ""},
		{"agent:agent-7 -decision:deny", false, ""},
		{"+kind:net_request -decision:deny -decision:error", false, ""},
		{"agent:agent-7 decision:deny", true, "agent:agent-7 OR decision:deny"},
		{"kind:proc_exec cmdline:curl", true, "kind:proc_exec OR cmdline:curl"},
		{"+kind:proc_exec cmdline:curl", true, "kind:proc_exec"}, // the optional clause only scored
		{"kind:a kind:b -agent:c", true, "kind:(a OR b) AND NOT agent:c"},
		{"kind:a OR kind:b", false, ""}, // written for the new syntax
		{"kind:a AND cmdline:b", false, ""},
		{"kind:(a OR b)", false, ""},
		{"dst_host:GITHUB.COM", true, "NOT *"}, // found nothing before
	} {
		old, _, changed, err := Changed(c.in)
		if err != nil {
			t.Errorf("Changed(%q): %v", c.in, err)
			continue
		}
		if changed != c.changed || changed && old.String() != c.old {
			t.Errorf("Changed(%q) = %v, old %s; want %v, %s", c.in, changed, old, c.changed, c.old)
		}
	}
}

// Hints name what a query that runs may not find.
func TestHints(t *testing.T) {
	c := Counts{Fields: map[string]map[string]int64{"agent": {"agent-7": 12}}}
	for _, h := range []struct{ in, want string }{
		{"agent:AGENT-7", "agent:agent-7 has 12"},
		{"curl or wget", `"or" is searched as a word; write OR`},
		{"kind:proc_exec cmdline:curl", "the old syntax read this as kind:proc_exec OR cmdline:curl"},
	} {
		q := MustParse(h.in)
		got := strings.Join(Hints(h.in, q, c), "; ")
		if !strings.Contains(got, h.want) {
			t.Errorf("Hints(%q) = %q, want %q", h.in, got, h.want)
		}
	}
	if got := Hints("agent:agent-7", MustParse("agent:agent-7"), c); len(got) != 0 {
		t.Errorf("a plain query has hints: %q", got)
	}
	if r := ReadAs("agent:agent-7  decision:deny", MustParse("agent:agent-7 decision:deny")); r != "agent:agent-7 AND decision:deny" {
		t.Errorf("ReadAs = %q", r)
	}
	if r := ReadAs("agent:agent-7", MustParse("agent:agent-7")); r != "" {
		t.Errorf("ReadAs of a query read as typed = %q", r)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"a b OR c", `agent:"x y" -kind:(a OR b)`, "bytes_out:>5 time:<2026-01-01", "/re/i", `\(x`} {
		f.Add(s)
	}
	// at and past the nesting bound (MaxNesting)
	f.Add(strings.Repeat("(", MaxNesting) + "a" + strings.Repeat(")", MaxNesting))
	f.Add(strings.Repeat("(", MaxNesting+1) + "a" + strings.Repeat(")", MaxNesting+1))
	f.Add(strings.Repeat("NOT (", MaxNesting/2) + "a" + strings.Repeat(")", MaxNesting/2))
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			return
		}
		back, err := Parse(q.String())
		if err != nil || !back.Equal(q) {
			t.Fatalf("%q reads as %s, which reads back as %s (%v)", s, q, back, err)
		}
		if _, err := Compile(q); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
	})
}

// TestEnumerationValuesMatchAnyCase: decision:DENY, as the tables show a
// denial, finds the denials in a real index, the same events as
// decision:deny, and so does every other case of an enumeration's value.
func TestEnumerationValuesMatchAnyCase(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	var evs []Event
	for i, d := range []string{DecisionDeny, DecisionAllow, DecisionDeny, DecisionError, ""} {
		evs = append(evs, Event{ID: "e" + string(rune('a'+i)), Time: t0.Add(time.Duration(i) * time.Second), Source: SourceProxy,
			Format: "squid", Kind: "net_request", Decision: d, Message: "CONNECT example.com:443"})
	}
	st, err := Open(filepath.Join(t.TempDir(), "index"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Index(context.Background(), evs, nil); err != nil {
		t.Fatal(err)
	}
	ids := func(text string) string {
		q, err := Parse(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		hits, err := st.Search(context.Background(), Request{Query: q, Limit: 10, Sort: SortTime})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		var out []string
		for _, ev := range hits.Events {
			out = append(out, ev.ID)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct{ in, want string }{
		{"decision:deny", "ea,ec"},
		{"decision:DENY", "ea,ec"},
		{"decision:Deny", "ea,ec"},
		{"decision:DEN*", "ea,ec"},
		{"decision:/DENY|ERROR/", "ea,ec,ed"},
		{"source:PROXY kind:NET_REQUEST -decision:ALLOW", "ea,ec,ed,ee"},
		{"agent:AGENT-7", ""}, // a name is not an enumeration: its case counts
	} {
		if got := ids(c.in); got != c.want {
			t.Errorf("%s finds %q, want %q", c.in, got, c.want)
		}
	}
}

// A query reads the events' text when a leaf searches the message or the
// catch-all field: a bare word, a pattern, one built on "" or _all.
func TestQueryReadsText(t *testing.T) {
	for text, want := range map[string]bool{
		"AKIA":                                true,
		"rm AND rf":                           true,
		"kind:tool_call AND curl*":            true,
		"-kind:net_request OR /ev[il]+/":      true,
		"kind:tool_call AND NOT message:curl": true,
		"message:/ret(ry)?/":                  true,
		"cmdline:curl url:*evil* path:/etc/":  false,
		"bytes_out:>100 time:>2026-01-01":     false,
		"*":                                   false,
		"tags:cred-read OR credential:*":      false,
	} {
		q, err := Parse(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if got := q.ReadsText(); got != want {
			t.Errorf("%s (%s): reads text %v, want %v", text, q, got, want)
		}
	}
	if !Term("_all", "token").ReadsText() || !And(Term("kind", "x"), Prefix("", "ak")).ReadsText() {
		t.Error("a query built on the catch-all field does not read the text")
	}
	if All().ReadsText() || None().ReadsText() {
		t.Error("all or none reads the text")
	}
}
