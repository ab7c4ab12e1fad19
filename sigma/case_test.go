package sigma

import (
	"slices"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// Each modifier class matches a value that differs from the event's only
// by case, and with |cased does not: Sigma's strings are case-insensitive
// unless a rule says otherwise.
func TestSigmaCaseEachModifierClass(t *testing.T) {
	ev := exec("e1", "agent-1", 0, "/usr/bin/curl -s https://host.example/x")
	ref := exec("f1", "agent-1", 1, "root")
	ref.User = "ROOT" // Image (the first word, "root") differs from User only by case
	evs := []evidence.Event{ev, ref}
	for _, c := range []struct {
		class, item, value, want string
	}{
		{"equal", "Image", `'/USR/BIN/CURL'`, "e1"},
		{"contains", "CommandLine|contains", `'HOST.EXAMPLE'`, "e1"},
		{"startswith", "CommandLine|startswith", `'/USR/BIN/CURL -S'`, "e1"},
		{"endswith", "CommandLine|endswith", `'HOST.EXAMPLE/X'`, "e1"},
		{"wildcard", "CommandLine", `'*CURL -? HTTPS://*'`, "e1"},
		{"all", "CommandLine|contains|all", `['CURL', 'HOST.EXAMPLE']`, "e1"},
		{"windash", "CommandLine|windash|contains", `' /S '`, "e1"},
		{"fieldref", "Image|fieldref", `User`, "f1"},
	} {
		for _, cased := range []bool{false, true} {
			item := c.item
			if cased {
				item += "|cased"
			}
			rules := mustLoad(t, ruleOn("    sel:\n        "+item+": "+c.value+"\n    condition: sel\n"))
			got := fired(scan(t, rules, evs), rules[0].ID)
			switch {
			case !cased && (len(got) != 1 || got[0] != c.want):
				t.Errorf("%s: %s: %s matched %v, want %s", c.class, item, c.value, got, c.want)
			case cased && len(got) != 0:
				t.Errorf("%s: %s: %s matched %v, want nothing", c.class, item, c.value, got)
			}
		}
	}
}

// A keyword (a value with no field) is found in the event's text whatever
// its case.
func TestSigmaCaseKeywords(t *testing.T) {
	evs := []evidence.Event{exec("e1", "agent-1", 0, "/usr/bin/curl -s https://host.example/x")}
	rules := mustLoad(t, ruleOn("    keywords:\n        - 'CURL -S HTTPS'\n    condition: keywords\n"))
	if got := fired(scan(t, rules, evs), rules[0].ID); len(got) != 1 {
		t.Errorf("keyword in another case: matched %v", got)
	}
}

// With |cased a keyword is found only in the case it is written, in the
// event's readable line and in the record as written.
func TestSigmaCaseKeywordsCased(t *testing.T) {
	line := exec("e1", "agent-1", 0, "/usr/bin/curl -s https://host.example/x")
	rec := exec("e2", "agent-1", 1, "/usr/bin/true")
	rec.Raw = `{"process_exec":{"process":{"binary":"/usr/bin/true","arguments":"--Token=Secret"}}}`
	evs := []evidence.Event{line, rec}
	for _, c := range []struct {
		name, keywords string
		want           []string
	}{
		{"another case, not cased", "        - 'CURL -S HTTPS'\n", []string{"e1"}},
		{"another case, cased", "        '|cased':\n            - 'CURL -S HTTPS'\n", nil},
		{"its case, cased", "        '|cased':\n            - 'curl -s https'\n", []string{"e1"}},
		{"raw, another case, not cased", "        - 'token=secret'\n", []string{"e2"}},
		{"raw, another case, cased", "        '|cased': 'token=secret'\n", nil},
		{"raw, its case, cased", "        '|cased': '--Token=Secret'\n", []string{"e2"}},
		{"wildcard, cased", "        '|cased':\n            - 'CURL*HOST'\n            - '*Token=S?cret*'\n", []string{"e2"}},
		{"all, cased", "        '|cased|all':\n            - 'curl'\n            - 'HOST'\n", nil},
		{"all, not cased", "        '|all':\n            - 'curl'\n            - 'HOST'\n", []string{"e1"}},
	} {
		rules := mustLoad(t, ruleOn("    keywords:\n"+c.keywords+"    condition: keywords\n"))
		if got := fired(scan(t, rules, evs), rules[0].ID); !slices.Equal(got, c.want) {
			t.Errorf("%s: matched %v, want %v", c.name, got, c.want)
		}
	}
}
