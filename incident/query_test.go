package incident

import (
	"reflect"
	"testing"
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
