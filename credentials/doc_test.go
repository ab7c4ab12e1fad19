package credentials

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite the catalogue tables in docs/credentials.md")

// catalogueTables renders the catalogue and the metadata hosts as the
// Markdown tables docs/credentials.md holds.
func catalogueTables() string {
	var b strings.Builder
	b.WriteString("| class | location | the path matches when it is | credential kinds it can hold |\n|---|---|---|---|\n")
	for _, l := range credentialCatalogue {
		kinds := "any (none can be named from the path)"
		if len(l.Kinds) > 0 {
			kinds = "`" + strings.Join(l.Kinds, "`, `") + "`"
		}
		b.WriteString("| " + l.Class + " | " + l.Name + " | " + matchText(l) + " | " + kinds + " |\n")
	}
	b.WriteString("\n| metadata host | service |\n|---|---|\n")
	for _, m := range metadataEndpoints {
		b.WriteString("| `" + m.Host + "` | " + m.Name + " |\n")
	}
	return b.String()
}

// matchText says in words how an entry matches a path.
func matchText(l Location) string {
	name := l.Base
	if l.BasePrefix != "" {
		name = l.BasePrefix + "*"
	}
	var s string
	switch {
	case l.IsDir:
		s = "the directory `…/" + l.Dir + "/` itself"
	case name != "" && l.Dir != "":
		s = "a file `" + name + "` in or below `…/" + l.Dir + "/`"
	case l.Dir != "":
		s = "`…/" + l.Dir + "/` or anything in it"
	case l.Home:
		s = "a file `" + name + "` in a home directory"
	default:
		s = "a file `" + name + "` anywhere"
	}
	if len(l.Except) > 0 {
		s += ", except `" + strings.Join(l.Except, "`, `") + "`"
	}
	return s
}

const (
	tablesBegin = "<!-- catalogue: generated from credentials/catalogue.go by `go test ./credentials -run TestCredentialsDoc -update` -->\n"
	tablesEnd   = "<!-- end of catalogue -->\n"
)

// docs/credentials.md lists the catalogue as the code has it: the two
// cannot drift.
func TestCredentialsDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "credentials.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(doc), tablesBegin)
	_, after, ok2 := strings.Cut(rest, tablesEnd)
	if !ok || !ok2 {
		t.Fatalf("%s has no generated catalogue between %q and %q", path, tablesBegin, tablesEnd)
	}
	want := before + tablesBegin + catalogueTables() + tablesEnd + after
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != string(doc) {
		t.Errorf("%s lists another catalogue than credentials/catalogue.go; run go test ./credentials -run TestCredentialsDoc -update", path)
	}
}
