package redact

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/redact/redacttest"
)

// Each class of secret form is tested with several tools or forms: the
// secret goes, its context stays.
func TestRedactClasses(t *testing.T) {
	perClass := map[string]int{}
	for _, c := range redacttest.Classes {
		perClass[c.Class]++
		var r Redactor
		got := r.Redact(c.Text)
		if strings.Contains(got, c.Secret) || r.Count() == 0 {
			t.Errorf("%s, %s: secret survived: %q", c.Class, c.Name, got)
		}
		if c.Keep != "" && !strings.Contains(got, c.Keep) {
			t.Errorf("%s, %s: context %q lost: %q", c.Class, c.Name, c.Keep, got)
		}
	}
	for class, n := range perClass {
		if n < 3 {
			t.Errorf("class %q has %d forms, want at least three", class, n)
		}
	}
}

// Identifiers a responder acts on stay, in every form, while the secret
// beside them goes.
func TestRedactShowsIdentifiers(t *testing.T) {
	for _, c := range redacttest.Shown {
		var r Redactor
		got := r.Redact(c.Text)
		if !strings.Contains(got, c.Keep) {
			t.Errorf("%s: identifier %q hidden: %q", c.Name, c.Keep, got)
		}
		if c.Secret != "" && strings.Contains(got, c.Secret) {
			t.Errorf("%s: secret %q survived: %q", c.Name, c.Secret, got)
		}
	}
}

func TestRedactLeavesNotSecrets(t *testing.T) {
	for _, c := range redacttest.NotSecrets {
		var r Redactor
		if got := r.Redact(c.Text); got != c.Text || r.Count() != 0 {
			t.Errorf("%s: %q -> %q", c.Name, c.Text, got)
		}
	}
}

// Every form of the tool table takes its secret, and only after its tool:
// the same option after another command is left alone.
func TestToolTable(t *testing.T) {
	table, err := ToolTable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tools(); err != nil {
		t.Fatal(err)
	}
	const secret = "Tb1Secret9"
	n := 0
	for tool, forms := range table {
		for _, form := range forms {
			arg := strings.NewReplacer("SECRET", secret, "USER", "ops", "ARG", "db1").Replace(form)
			line := tool + " " + arg + " --verbose"
			if got := Redact(line, nil); strings.Contains(got, secret) || !strings.Contains(got, "--verbose") {
				t.Errorf("%s %q: %q", tool, form, got)
			}
			if got := Redact("otherthing "+arg+" --verbose", nil); strings.Contains(form, "-") && !strings.Contains(form, "pass") && !strings.Contains(form, "--") && !strings.Contains(got, secret) {
				t.Errorf("%q after another command was taken: %q", form, got)
			}
			n++
		}
	}
	if n < 200 {
		t.Errorf("only %d forms in the table", n)
	}
}

func TestParseToolsRefusesBadForms(t *testing.T) {
	for _, bad := range []string{
		"- tools: [x]\n  forms: [\"-p\"]\n",
		"- tools: [x]\n  forms: [\"-p SECRET SECRET\"]\n",
		"- tools: []\n  forms: [\"-p SECRET\"]\n",
		"not: [a list",
	} {
		if _, err := parseTools([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
