package attribution

import (
	"reflect"
	"testing"
)

// Names that differ only by look-alike letters of another script,
// invisible characters or fullwidth forms are one name to the eye: each is
// flagged with the others, and written out so a person can tell them
// apart. Names that merely resemble each other are not.
func TestLookAlikeAgentNames(t *testing.T) {
	names := []string{
		"agent-7",
		"аgent-7",       // Cyrillic а
		"agent\u200b-7", // a zero-width space
		"ａｇｅｎｔ-7",       // fullwidth
		"agent-17",      // another agent
		"agent-rn",      // "rn" passes for "m"
		"agent-m",
		"ΑGENT-9", "agent-9", // Greek capital alpha, and case
	}
	got := LookAlikes(names)
	want := map[string][]string{
		"agent-7":       {"agent\u200b-7", "аgent-7", "ａｇｅｎｔ-7"},
		"аgent-7":       {"agent-7", "agent\u200b-7", "ａｇｅｎｔ-7"},
		"agent\u200b-7": {"agent-7", "аgent-7", "ａｇｅｎｔ-7"},
		"ａｇｅｎｔ-7":       {"agent-7", "agent\u200b-7", "аgent-7"},
		"agent-rn":      {"agent-m"},
		"agent-m":       {"agent-rn"},
		"ΑGENT-9":       {"agent-9"},
		"agent-9":       {"ΑGENT-9"},
	}
	for n, w := range want {
		if !reflect.DeepEqual(got[n], w) {
			t.Errorf("%q looks like %q, want %q", n, got[n], w)
		}
	}
	if _, ok := got["agent-17"]; ok {
		t.Errorf("agent-17 flagged: %q", got["agent-17"])
	}
	for n, w := range map[string]string{"аgent-7": "<U+0430 Cyrillic>gent-7", "agent\u200b-7": "agent<U+200B invisible>-7", "agent-7": "agent-7"} {
		if r := Revealed(n); r != w {
			t.Errorf("Revealed(%q) = %q, want %q", n, r, w)
		}
	}
}
