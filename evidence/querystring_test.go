package evidence

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestTermQuotes(t *testing.T) {
	for value, want := range map[string]string{
		"agent-7":    `agent:agent-7`,
		`a "b" \c-1`: `agent:a\ \"b\"\ \\c-1`,
		"-x:y":       `agent:\-x\:y`,
	} {
		if got := Term("agent", value); got != want {
			t.Errorf("Term(%q) = %s, want %s", value, got, want)
		}
	}
}

func TestCombine(t *testing.T) {
	for _, c := range []struct {
		filter, search, want string
		anded                bool
	}{
		{"", "curl", "curl", false},
		{`+agent:a`, "", `+agent:a`, false},
		{`+agent:a`, "curl", `+agent:a +curl`, false},
		{`+agent:a`, "curl nohup", `+agent:a +curl +nohup`, true},
		{`+agent:a`, "+kind:x curl", `+agent:a +kind:x curl`, false},
		{`+agent:a`, `-kind:dns_query "a b"`, `+agent:a -kind:dns_query +"a b"`, false},
	} {
		got, anded := Combine(c.filter, c.search)
		if got != c.want || anded != c.anded {
			t.Errorf("Combine(%q, %q) = %q %v, want %q %v", c.filter, c.search, got, anded, c.want, c.anded)
		}
	}
}

func TestClauses(t *testing.T) {
	got := Clauses(`+agent:"a b" cmdline:x\ y  -"q\" r"`)
	want := []string{`+agent:"a b"`, `cmdline:x\ y`, `-"q\" r"`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Clauses = %q", got)
	}
	if f := AddClause(`+a:"1"`, `+a:"1"`); f != `+a:"1"` {
		t.Errorf("AddClause duplicated: %s", f)
	}
}

func TestIDQuery(t *testing.T) {
	if q := IDQuery([]string{"ab12", "cd34"}); q != "+id:/(ab12|cd34)/" {
		t.Errorf("hex ids: %s", q)
	}
	if q := IDQuery([]string{"a b"}); q != `id:a\ b` {
		t.Errorf("odd id: %s", q)
	}
}

func TestClauseField(t *testing.T) {
	for clause, want := range map[string]string{
		"+agent:a":          "agent",
		"-kind:dns_query":   "kind",
		`agent\:x:y`:        `agent\:x`,
		"message:agent:x":   "message",
		"curl":              "",
		`"a:b"`:             "",
		"/ag:x/":            "",
		"+":                 "",
		"":                  "",
		`+cmdline:"x y"`:    "cmdline",
		`+agent:a\ b`:       "agent",
		"time:>=2026-07-21": "time",
	} {
		if got := ClauseField(clause); got != want {
			t.Errorf("ClauseField(%q) = %q, want %q", clause, got, want)
		}
	}
}

// TestTermFindsOddValues runs Term's clauses against the store: a value with
// a space, a colon, a quote or a leading dash must match exactly itself, and
// Not must exclude exactly it.
func TestTermFindsOddValues(t *testing.T) {
	agents := []string{`agent 7`, `a:b`, `-lead`, `q"uote`, `back\slash`, `agent-7`}
	var evs []Event
	for i, agent := range agents {
		ev := Event{Time: t0.Add(time.Duration(i) * time.Second), Source: SourceLedger, Kind: KindSummary, Agent: agent, Message: "x", Raw: agent}
		ev.ID = MakeID("test", int64(i), 0, []byte(ev.Raw))
		evs = append(evs, ev)
	}
	st, err := Open(filepath.Join(t.TempDir(), "index.bleve"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := st.Index(ctx, evs, nil); err != nil {
		t.Fatal(err)
	}
	for _, agent := range agents {
		q := Must("agent", agent)
		h, err := st.Search(ctx, Request{Query: q})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if h.Total != 1 || h.Events[0].Agent != agent {
			t.Errorf("%s found %d events", q, h.Total)
		}
		q = Must("source", SourceLedger) + " " + Not("agent", agent)
		h, err = st.Search(ctx, Request{Query: q})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if h.Total != uint64(len(agents)-1) {
			t.Errorf("%s found %d events, want %d", q, h.Total, len(agents)-1)
		}
	}
}
