package redact

import (
	"regexp"
	"strings"
	"sync"
)

// What a responder has to act on is not a secret, and a report that hides
// it cannot be acted on: the id of a key to deactivate, the account to
// delete, the fingerprint of a key to remove from authorized_keys. Such
// identifiers are shown by every output, the assistant's packets included,
// whatever pattern, corpus rule or entropy test would otherwise take them;
// the secret that goes with them (the secret access key, the token) is
// still redacted. This file is the one place that decides it.

// shownForm is a form of identifier: group is the submatch that is the
// identifier (0: the whole match); hints gate it as they gate a pattern,
// in the text as it is when exact (the form is case-sensitive: "SHA256:"
// and not every ledger line's "sha256:" digest).
type shownForm struct {
	kind  string
	re    *regexp.Regexp
	group int
	hints []string
	exact bool
}

var shownForms = sync.OnceValue(func() []shownForm {
	return []shownForm{
		// AWS access key ids (AKIA long-term, ASIA temporary) and the unique
		// ids of users, roles, groups and policies: what IAM deactivates and
		// CloudTrail names. The secret access key and session token are not.
		{"aws-access-key", regexp.MustCompile(`\b(?:AKIA|ASIA|AIDA|AROA|AGPA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`), 0,
			[]string{"AKIA", "ASIA", "AIDA", "AROA", "AGPA", "ANPA", "ANVA", "AIPA"}, true},
		// A Kubernetes service account as the API server names it: the
		// identity to delete or unbind, namespace-qualified.
		{"k8s-service-account", regexp.MustCompile(`\bsystem:serviceaccount:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?`), 0,
			[]string{"system:serviceaccount:"}, true},
		// GitHub's audit log names a token by hashed_token (base64 of its
		// SHA-256) and token_id: how the token is found to revoke it.
		{"github-token-id", regexp.MustCompile(`(?i)\bhashed_token\\?["']?[ \t]*[:=][ \t]*\\?["']?([A-Za-z0-9+/]{43}=)`), 1,
			[]string{"hashed_token"}, false},
		// Key fingerprints as ssh-keygen, sshd and the clouds print them.
		{"key-fingerprint", regexp.MustCompile(`\b(?:SHA256|SHA384|SHA512):[A-Za-z0-9+/]{43,86}={0,2}|\bMD5:[0-9a-f]{2}(?::[0-9a-f]{2}){15}\b`), 0,
			[]string{"SHA256:", "SHA384:", "SHA512:", "MD5:"}, true},
		// A cloud key file's key id (GCP private_key_id, a KMS or JWK key id),
		// when it has an id's shape: hex or a UUID.
		{"key-id", regexp.MustCompile(`(?i)\b(?:private_key_id|key_?id|kid)\\?["']?[ \t]*[:=][ \t]*\\?["']?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,128})\b`), 1,
			[]string{"key_id", "keyid", "kid"}, false},
	}
})

// shownSpans are the identifiers text holds; lower is text lower-cased.
func shownSpans(text, lower string) []span {
	var out []span
	for _, f := range shownForms() {
		if f.exact && !hinted(text, f.hints) || !f.exact && !hinted(lower, f.hints) {
			continue
		}
		for _, loc := range f.re.FindAllStringSubmatchIndex(text, -1) {
			if s, e := loc[2*f.group], loc[2*f.group+1]; s >= 0 && e > s {
				out = append(out, span{s, e})
			}
		}
	}
	return out
}

// ShownKind is the kind of identifier id is, "" when it is not one a
// responder acts on (it may then be a secret).
func ShownKind(id string) string {
	for _, f := range shownForms() {
		if f.group != 0 {
			continue
		}
		if loc := f.re.FindStringIndex(id); loc != nil && loc[0] == 0 && loc[1] == len(id) {
			return f.kind
		}
	}
	return ""
}

// notSecret drops from found what is not a secret: a span within an
// identifier, or a plain file path. A span that only overlaps an
// identifier keeps its parts outside it that still hold a word or a
// number, so that an identifier glued to a secret (AKIA…:secret) shows
// the one and hides the other.
func notSecret(text string, found, shown []span) []span {
	out := found[:0:0]
	for _, f := range found {
		for _, p := range outside(f, shown) {
			if v := text[p.s:p.e]; hasWordChar(v) && !plainPath(v, false) {
				out = append(out, p)
			}
		}
	}
	return out
}

// outside is the parts of f that no span of shown covers.
func outside(f span, shown []span) []span {
	parts := []span{f}
	for _, sh := range shown {
		var next []span
		for _, p := range parts {
			if sh.e <= p.s || sh.s >= p.e {
				next = append(next, p)
				continue
			}
			if p.s < sh.s {
				next = append(next, span{p.s, sh.s})
			}
			if sh.e < p.e {
				next = append(next, span{sh.e, p.e})
			}
		}
		parts = next
	}
	return parts
}

func hasWordChar(s string) bool {
	for i := 0; i < len(s); i++ {
		if wordByte(s[i]) {
			return true
		}
	}
	return false
}

// plainPath reports whether s is a file path of ordinary names
// (/run/secrets/eval/s-228/allowlist, ~/.aws/credentials): a path names
// where a secret is, it is not one, and the indicator list shows it. A
// base64 secret holds slashes too; its segments read as random (mixed case
// that switches back and forth, or letters and digits mixed with both
// cases), which a path's names do not. relative admits a path that does
// not start at a root (a/b/c, three names or more): the entropy rule's
// tokens are cut out of the text, a pattern's value is the whole value
// (the path of a Slack webhook is a secret).
func plainPath(s string, relative bool) bool {
	rest, anchored := s, false
	for _, p := range []string{"/", "~/", "./", "../"} {
		if strings.HasPrefix(s, p) {
			rest, anchored = s[len(p):], true
			break
		}
	}
	segs := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	if !anchored && (!relative || len(segs) < 3) {
		return false
	}
	for _, seg := range segs {
		if seg == "" && anchored || !pathName(seg) {
			return false
		}
	}
	return true
}

// pathName: a file name of ordinary characters that does not read as
// random.
func pathName(seg string) bool {
	if seg == "" || len(seg) > 255 {
		return false
	}
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; !wordByte(c) && strings.IndexByte(".-@%+,~", c) < 0 {
			return false
		}
	}
	return !randomLooking(seg)
}

// randomLooking: letters of both cases mixed with digits, or both cases
// in a run that is not words (requestReceivedTimestamp, MyProject are
// words; bPxRfiCYEXAMPLEKEY is not). Short runs are never random.
func randomLooking(s string) bool {
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r >= 0x80 || !wordByte(byte(r)) || r == '_' }) {
		if len(part) < 8 {
			continue
		}
		var upper, lower, digit bool
		for i := 0; i < len(part); i++ {
			switch c := part[i]; {
			case c >= 'a' && c <= 'z':
				lower = true
			case c >= 'A' && c <= 'Z':
				upper = true
			default:
				digit = true
			}
		}
		if upper && lower && (digit || !camelWords(part)) {
			return true
		}
	}
	return false
}

// camelWords: letters that split into words, each an optional capital and
// two or more small letters, or a run of capitals (an acronym: HTTPServer,
// getURL) — how identifiers are made, not how random text falls.
func camelWords(s string) bool {
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] >= 'A' && s[j] <= 'Z' {
			j++
		}
		caps := j - i
		k := j
		for k < len(s) && s[k] >= 'a' && s[k] <= 'z' {
			k++
		}
		small := k - j
		switch {
		case k == i:
			return false // not a letter
		case small == 0:
			// an acronym at the end
		case small == 1 && k < len(s), small == 1 && caps == 0:
			return false // one small letter between capitals: not a word
		}
		i = k
	}
	return true
}
