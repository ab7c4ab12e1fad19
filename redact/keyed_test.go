package redact

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// Keyed placeholders are the same for one secret in every redactor with
// the key, differ between keys, and never show the secret.
func TestKeyedPlaceholders(t *testing.T) {
	const text = "curl -u admin:Sup3rS3cret! https://x.example.com; export GITHUB_TOKEN=abcd1234efgh"
	a, b := Keyed([]byte("case-key")).Redact(text), Keyed([]byte("case-key")).Redact("again admin:Sup3rS3cret! here "+text)
	other := Keyed([]byte("another")).Redact(text)
	ph := regexp.MustCompile(`\[SECRET-[0-9a-f]{10}\]`).FindAllString(a, -1)
	if len(ph) != 2 || strings.Contains(a, "Sup3rS3cret!") || strings.Contains(a, "abcd1234efgh") {
		t.Fatalf("keyed: %q", a)
	}
	if !strings.Contains(b, ph[0]) || !strings.Contains(b, ph[1]) {
		t.Errorf("another redactor with the key gives other placeholders: %q vs %q", a, b)
	}
	if strings.Contains(other, ph[0]) {
		t.Errorf("another key gives the same placeholder: %q", other)
	}
	r := Keyed([]byte("case-key"))
	if again := r.Redact(a); again != a || r.Count() != 0 {
		t.Errorf("redacting keyed output again changed it: %q", again)
	}
}

// Walk reaches every string of a value: fields, nested structs, slices,
// maps and pointers, and leaves map keys and raw JSON alone.
func TestWalkRedactsEveryString(t *testing.T) {
	type inner struct {
		Cmd  string
		Tags []string
	}
	type outer struct {
		Msg   string
		In    inner
		Ptr   *inner
		List  []inner
		ByKey map[string]string
		Raw   json.RawMessage
		Any   any
	}
	secret := "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	v := outer{Msg: "token " + secret, In: inner{Cmd: "git push " + secret, Tags: []string{secret}},
		Ptr: &inner{Cmd: secret}, List: []inner{{Cmd: secret}}, ByKey: map[string]string{"agent-7": secret},
		Raw: json.RawMessage(`"x"`), Any: &inner{Cmd: secret}}
	Walk(&v, &Redactor{})
	m := map[string]any{"description": "read " + secret, "refs": []string{secret}, "n": 3, "nested": map[string]any{"x": secret}}
	Walk(m, &Redactor{})
	if b, _ := json.Marshal(m); strings.Contains(string(b), secret) || m["n"] != 3 {
		t.Errorf("map of any after Walk: %s", b)
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), secret) || !strings.Contains(string(b), `"agent-7"`) || string(v.Raw) != `"x"` {
		t.Errorf("after Walk: %s", b)
	}
}

// Found names the secrets of a text by their placeholders, once each.
func TestFoundNamesSecrets(t *testing.T) {
	r := Keyed([]byte("k"))
	got := r.Found("oauth_token: ghp_16C7e42F292c6912E7710c838347Ae178B4a and again ghp_16C7e42F292c6912E7710c838347Ae178B4a, xoxb-2048-4096-aBcDeFgHiJkLmNoP; key id AKIAIOSFODNN7EXAMPLE")
	if len(got) != 2 || got[0] == got[1] || !strings.HasPrefix(got[0], "[SECRET-") {
		t.Errorf("found %v", got)
	}
	if again := r.Found("nothing here: id 3fa1c2d4e5f60718"); again != nil {
		t.Errorf("found %v in a text with no secret", again)
	}
}

// Walking many values that repeat (an export's agent names and hosts)
// remembers only that a string held no secret: a repeated secret is
// replaced, and counted, every time.
func TestWalkRemembersOnlyCleanStrings(t *testing.T) {
	r := Keyed([]byte("0123456789abcdef0123456789abcdef"))
	type line struct{ Agent, Cmd string }
	for i := range 3 {
		l := line{Agent: "agent-12", Cmd: "curl -u ops:Hunter2Hunter2 https://x"}
		Walk(&l, r)
		if l.Agent != "agent-12" || strings.Contains(l.Cmd, "Hunter2") {
			t.Fatalf("walk %d: %+v", i, l)
		}
	}
	if r.Count() != 3 || r.Secrets() != 1 {
		t.Errorf("count %d, secrets %d: want 3 replacements of 1 secret", r.Count(), r.Secrets())
	}
	if !r.knownClean("agent-12") || r.knownClean("curl -u ops:Hunter2Hunter2 https://x") {
		t.Error("only the clean string is remembered")
	}
}
