package redact

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Key is a secret of a recognizable form (a cloud access key, a forge or
// API token, a private key) found in a text: named by its placeholder,
// never kept, with the kind its form shows.
type Key struct {
	Placeholder string
	// Kind is what the form says it is: aws-access-key, github-token,
	// gitlab-token, slack-token, openai-key, anthropic-key, stripe-key,
	// docker-token, gcp-api-key, gcp-oauth-token, jwt, private-key.
	Kind string
	// Logged are the forms a service's own log names it by, when not the
	// key itself: GitHub's audit log gives a token's hashed_token, the
	// base64 of its SHA-256.
	Logged []string
}

// keyForms are the starts that mark a key's form, with its kind, checked
// in order (sk-ant- before sk-).
var keyForms = []struct{ prefix, kind string }{
	{"AKIA", "aws-access-key"}, {"ASIA", "aws-access-key"},
	{"ghp_", "github-token"}, {"gho_", "github-token"}, {"ghu_", "github-token"},
	{"ghs_", "github-token"}, {"ghr_", "github-token"}, {"github_pat_", "github-token"},
	{"glpat-", "gitlab-token"},
	{"xoxa-", "slack-token"}, {"xoxb-", "slack-token"}, {"xoxp-", "slack-token"}, {"xoxr-", "slack-token"},
	{"sk-ant-", "anthropic-key"}, {"sk-", "openai-key"},
	{"sk_live_", "stripe-key"}, {"rk_live_", "stripe-key"}, {"sk_test_", "stripe-key"}, {"rk_test_", "stripe-key"},
	{"dckr_pat_", "docker-token"},
	{"AIza", "gcp-api-key"}, {"ya29.", "gcp-oauth-token"},
	{"eyJ", "jwt"},
	{"-----BEGIN", "private-key"},
}

// MayHoldKey reports whether text could hold a key of a known form: one
// pass over its bytes, looking for a form's start at the start of a word
// ("task-runner" holds "sk-" but no key), so that the many texts that hold
// none are never redacted to find out.
func MayHoldKey(text string) bool {
	for i := 0; i < len(text); i++ {
		if !keyStart[text[i]] || i > 0 && wordByte(text[i-1]) {
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

// keyStart marks the first bytes of the key forms.
var keyStart = func() (t [256]bool) {
	for _, f := range keyForms {
		t[f.prefix[0]] = true
	}
	return t
}()

func wordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// keyKind is the kind of key a secret's form shows, "" when it shows none
// (a password, an opaque value).
func keyKind(secret string) string {
	for _, f := range keyForms {
		if !strings.HasPrefix(secret, f.prefix) {
			continue
		}
		if f.kind == "jwt" && strings.Count(secret, ".") < 2 {
			// a token's header alone ("eyJhbGciOi…", an excerpt cut
			// short) signs nothing: not a key anyone can present
			return ""
		}
		return f.kind
	}
	return ""
}

// Keys returns the keys text holds, each once, in the order they appear,
// by r's placeholders; secrets of no recognizable form are left out, and
// so are those skip names (nil skips none): ids that are already known by
// name, such as a credential a session was issued.
func (r *Redactor) Keys(text string, skip func(secret string) bool) []Key {
	if !MayHoldKey(text) {
		return nil
	}
	r.seen = map[string]string{}
	defer func() { r.seen = nil }()
	r.Redact(text)
	var out []Key
	for _, s := range r.order {
		kind := keyKind(s)
		if kind == "" || skip != nil && skip(s) {
			continue
		}
		k := Key{Placeholder: r.seen[s], Kind: kind}
		if kind == "github-token" {
			sum := sha256.Sum256([]byte(s))
			k.Logged = []string{base64.StdEncoding.EncodeToString(sum[:])}
		}
		out = append(out, k)
	}
	r.order = r.order[:0]
	return out
}
