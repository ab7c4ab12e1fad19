package assist

import "testing"

// A keyword joined to what follows by a dash is a word, not a key and its
// value: "credential-misuse" names no credential "ential-misuse", while
// "credential px-s228" and "session: s-19" do name theirs.
func TestKeyedEntitiesNeedASeparator(t *testing.T) {
	for text, want := range map[string]string{
		"the credential-misuse detector fired": "",
		"credential px-s228 was used":          "credential px-s228",
		"in session: s-19":                     "session s-19",
	} {
		got := ""
		for _, e := range entities(text, nil, nil) {
			if e.kind == "credential" || e.kind == "session" {
				got = e.String()
			}
		}
		if got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}
