package redact

import (
	"crypto/sha256"
	"encoding/base64"
	"sort"
	"strings"
)

// Key is a key of a recognizable form (a cloud access key, a forge or
// API token, a private key) found in a text, with the kind its form shows.
type Key struct {
	// Name is how every output of the case names it: the secret's
	// placeholder, never the secret; or, for a key known by an id that is
	// not secret (an AWS access key id, whose secret key is another
	// string), the id itself, as IAM and CloudTrail name it.
	Name string
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
// none are never redacted to find out. Only the forms that begin with the
// byte at a word's start are tried: a replay asks it of every tool call
// and output, whole records of hundreds of bytes, on the goroutine that
// sets its pace.
func MayHoldKey(text string) bool {
	after := false // the byte before is a word's
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !after {
			for _, f := range formsFrom[c] {
				if strings.HasPrefix(text[i:], f) {
					return true
				}
			}
		}
		after = wordBytes[c]
	}
	return false
}

// formsFrom is, by first byte, the prefixes of the key forms that begin
// with it.
var formsFrom = func() (t [256][]string) {
	for _, f := range keyForms {
		t[f.prefix[0]] = append(t[f.prefix[0]], f.prefix)
	}
	return t
}()

// wordBytes marks the bytes wordByte says are a word's.
var wordBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = wordByte(byte(c))
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
// by their names (see Key.Name); secrets of no recognizable form are left
// out, and so are those skip names (nil skips none): ids that are already
// known by name, such as a credential a session was issued.
func (r *Redactor) Keys(text string, skip func(secret string) bool) []Key {
	if !MayHoldKey(text) {
		return nil
	}
	r.seen = map[string]string{}
	defer func() { r.seen, r.order = nil, r.order[:0] }()
	r.Redact(text)
	norm := normalize(text)
	type found struct {
		at         int
		secret, ph string
	}
	var all []found
	for _, s := range r.order {
		at := strings.Index(norm, s)
		if at < 0 {
			at = len(norm) // brought together by a replacement: after the rest
		}
		all = append(all, found{at, s, r.seen[s]})
	}
	// Ids that are shown, not redacted, are keys all the same.
	for _, sp := range shownSpans(norm, strings.ToLower(norm)) {
		if id := norm[sp.s:sp.e]; keyKind(id) != "" {
			all = append(all, found{sp.s, id, id})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at < all[j].at })
	var out []Key
	named := map[string]bool{}
	for _, f := range all {
		kind := keyKind(f.secret)
		if kind == "" || named[f.secret] || skip != nil && skip(f.secret) {
			continue
		}
		named[f.secret] = true
		k := Key{Name: f.ph, Kind: kind}
		if kind == "github-token" {
			sum := sha256.Sum256([]byte(f.secret))
			k.Logged = []string{base64.StdEncoding.EncodeToString(sum[:])}
		}
		out = append(out, k)
	}
	return out
}
