package redact

import (
	"math/rand"
	"strings"
	"testing"
)

func TestKeysNamesKeysByTheirPlaceholders(t *testing.T) {
	const aws = "AKIAZ7QX3M2LPN4RT6VW"
	const gh = "ghp_0123456789abcdefABCDEFghijklmnopqrst"
	text := "export AWS_ACCESS_KEY_ID=" + aws + "\npassword=hunter2hunter2\ngit remote set-url origin https://x:" + gh + "@github.com/acme/ci\n" + aws
	r := Keyed([]byte("0123456789abcdef0123456789abcdef"))
	keys := r.Keys(text, nil)
	if len(keys) != 2 {
		t.Fatalf("keys %+v, want the AWS key and the GitHub token once each", keys)
	}
	if keys[0].Kind != "aws-access-key" || keys[1].Kind != "github-token" {
		t.Errorf("kinds %+v", keys)
	}
	// The access key id is not secret: the key is named by it, as IAM and
	// CloudTrail name it. The token is named by its placeholder.
	if keys[0].Name != aws {
		t.Errorf("the AWS key is named %q, want its id", keys[0].Name)
	}
	out := Keyed([]byte("0123456789abcdef0123456789abcdef")).Redact(text)
	for _, k := range keys {
		if !strings.Contains(out, k.Name) {
			t.Errorf("%s is not the name a report of the case writes:\n%s", k.Name, out)
		}
	}
	if !placeholderRe().MatchString(keys[1].Name) || strings.Contains(keys[1].Name, gh[4:]) || strings.Contains(out, gh) {
		t.Errorf("the token's name %q, the output %q", keys[1].Name, out)
	}
	if again := r.Keys("seen again: "+aws, nil); len(again) != 1 || again[0].Name != keys[0].Name {
		t.Errorf("the same key in another text: %+v, want %+v", again, keys[0])
	}
	if skipped := r.Keys(text, func(s string) bool { return s == aws }); len(skipped) != 1 || skipped[0].Kind != "github-token" {
		t.Errorf("skipping the known id: %+v", skipped)
	}
	if got := r.Keys("token: eyJhbGciOiJSUzI1NiIsImtpZCI6Ik**** (cut)", nil); got != nil {
		t.Errorf("a JWT's header alone is not a key: %+v", got)
	}
	if got := r.Keys("password=hunter2hunter2 and nothing of a key's form", nil); got != nil {
		t.Errorf("a password is not a key: %+v", got)
	}
	for _, plain := range []string{"GET https://pypi.org/simple/requests/ 200", "run the task-runner on disk-7"} {
		if MayHoldKey(plain) {
			t.Errorf("%q may hold a key?", plain)
		}
	}
	for _, k := range []string{"x " + aws, "url=https://x:" + gh + "@h", "key:sk-proj-abc"} {
		if !MayHoldKey(k) {
			t.Errorf("%q may not hold a key?", k)
		}
	}
}

// MayHoldKey is its definition: some key form's prefix begins at the
// start of a word. Checked against the definition on random texts made of
// the forms' prefixes, pieces of them, word bytes and separators.
func TestMayHoldKeyIsItsDefinition(t *testing.T) {
	holds := func(text string) bool {
		for i := range len(text) {
			if i > 0 && wordByte(text[i-1]) {
				continue
			}
			for _, f := range keyForms {
				if strings.HasPrefix(text[i:], f.prefix) {
					return true
				}
			}
		}
		return false
	}
	r := rand.New(rand.NewSource(3))
	var pieces []string
	for _, f := range keyForms {
		pieces = append(pieces, f.prefix, f.prefix[:len(f.prefix)-1])
	}
	pieces = append(pieces, "a", "Z", "0", "_", "-", " ", ":", "=", "\"", "/", ".", "\n", "é")
	yes := 0
	for range 20000 {
		var b strings.Builder
		for range r.Intn(6) {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		s := b.String()
		want := holds(s)
		if got := MayHoldKey(s); got != want {
			t.Fatalf("MayHoldKey(%q) = %v, want %v", s, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < 2000 || yes > 18000 {
		t.Fatalf("%d texts of 20000 may hold a key: the check needs both answers", yes)
	}
}
