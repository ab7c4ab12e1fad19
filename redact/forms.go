package redact

import (
	"regexp"
	"strings"
	"sync"
)

// formPatterns are the secrets' forms beyond a provider's token and an
// assignment: credentials in a URL's query, credential files' contents,
// connection strings, and the pieces of a private key cut across lines or
// records. They run with the other patterns, on the same text.
var formPatterns = sync.OnceValue(func() []pattern {
	return []pattern{
		// A URL's query carrying a signature, a one-time code or a token
		// (presigned S3 and GCS URLs, Azure SAS, OAuth redirects, CAS
		// tickets). The names that only identify (X-Amz-Credential, which
		// holds the access key id, Key-Pair-Id, Expires, state) stay.
		{name: "url-query", re: regexp.MustCompile(`(?i)[?&;](?:amp;)?(?:x-amz-signature|x-amz-security-token|x-goog-signature|signature|sig|code|access_token|refresh_token|id_token|auth_token|authtoken|token|auth|apikey|api_key|hmac|otp|ticket|sessionid|session_id|jsessionid|password|passwd|pass|pwd|secret|client_secret)=([^&\s"'#<>\\]+)`), group: 1,
			hints: []string{"signature", "sig=", "code=", "token", "auth", "key=", "hmac", "otp=", "ticket=", "session", "pass", "pwd", "secret"},
			gate: func(text, _ string) bool {
				return strings.ContainsAny(text, "?&;") && strings.IndexByte(text, '=') >= 0
			}},
		// .netrc: machine HOST login USER password SECRET, on one line or
		// several (raw or written \n in a JSON string).
		{name: "netrc", re: regexp.MustCompile(`\bmachine[ \t]+\S+(?:(?:\s|\\[nrt])+(?:login|account|port)[ \t]+\S+)*(?:\s|\\[nrt])+password[ \t]+([^\s"'\\]+)`), group: 1,
			hints: []string{"machine"}},
		// Docker's and Podman's auth files (config.json, auth.json): "auth"
		// is base64 of user:password.
		{name: "registry-auth", re: regexp.MustCompile(`\\?"auth\\?"[ \t]*:[ \t]*\\?"([A-Za-z0-9+/]{8,}={0,2})\\?"`), group: 1, hints: []string{`auth`}},
		// Password hashes of /etc/shadow, htpasswd and application databases
		// (crypt's $1$ $5$ $6$ $y$, bcrypt, Apache's $apr1$, argon2, scrypt):
		// enough to crack the password offline.
		{name: "password-hash", re: regexp.MustCompile(`\$(?:1|2[abxy]|5|6|7|y|gy|apr1|argon2(?:id|i|d)|scrypt|pbkdf2(?:-sha\d+)?)\$[^\s:'"\\,;]{8,}`), group: 0, hints: []string{"$"}},
		// Oracle's thin JDBC URL: jdbc:oracle:thin:user/password@host.
		{name: "jdbc-oracle", re: regexp.MustCompile(`(?i)\bjdbc:oracle:[a-z0-9]+:[^\s/@"':]+/([^\s@"']+)@`), group: 1, hints: []string{"jdbc:oracle"}},
		// The end of a private key whose header was in another record: the
		// base64 lines before its END line.
		{name: "pem-tail", re: regexp.MustCompile(`((?:[A-Za-z0-9+/=]{8,}(?:[ \t]*(?:\r?\n|\\r?\\n)[ \t]*))+)-----END [A-Z0-9 ]*PRIVATE KEY-----`), group: 1,
			hints: []string{"private key-----"}},
	}
})

// userPass is a scheme-less user:password@host (impacket's
// domain/user:pass@host, a proxy setting, a client's connect string). The
// host has a dot, is an address, or is followed by a port.
var userPass = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[A-Za-z0-9._%+\\-]+/)?[A-Za-z0-9._%+-]+:([^\s:@/"'<>\\]+)@(?:(?:[A-Za-z0-9-]+\.)+[A-Za-z0-9-]*[A-Za-z][A-Za-z0-9-]*|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:]+\]|[A-Za-z][A-Za-z0-9-]*:\d{1,5}\b)`)
})

// notUserPass: schemes whose "x:y@host" is an address, not a login.
var notUserPass = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:mailto|sips?|tel|xmpp|urn|data|cid|mid|news|geo|im|pres):`)
})

// maxUserPass bounds how far before an @ its user:password is looked for.
const maxUserPass = 320

// userPassSpans appends the passwords of user:password@host: each @ is
// traced back to the start of its word (or the @ before it: neither the
// user nor the password holds one), and only a word with a colon before
// its @ is matched, so that the expression runs on a few short words
// rather than on the whole text.
func userPassSpans(text, _ string, found []span) []span {
	for at := strings.IndexByte(text, '@'); at >= 0; {
		start := at
		for start > 0 && at-start < maxUserPass && strings.IndexByte(" \t\n\r\"'=(,<>@", text[start-1]) < 0 {
			start--
		}
		if colon := strings.IndexByte(text[start:at], ':'); colon > 0 && colon < at-start-1 {
			word := text[start:min(len(text), at+maxUserPass)]
			if loc := userPass().FindStringSubmatchIndex(word); loc != nil && !notUserPass().MatchString(word) && plausibleValue(word[loc[2]:loc[3]]) {
				found = append(found, span{start + loc[2], start + loc[3]})
			}
		}
		next := strings.IndexByte(text[at+1:], '@')
		if next < 0 {
			break
		}
		at += 1 + next
	}
	return found
}

// pgpassSpans appends the passwords of .pgpass lines
// (host:port:database:user:password); a line qualifies only with a port
// field (digits or *), which a clock time's fields do not have after it.
func pgpassSpans(text, _ string, found []span) []span {
	if !hasPortField(text) {
		return found
	}
	for _, loc := range pgpassLine().FindAllStringSubmatchIndex(text, -1) {
		if s, e := loc[2], loc[3]; s >= 0 && plausibleValue(text[s:e]) {
			found = append(found, span{s, e})
		}
	}
	return found
}

var pgpassLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(?:^|\\n|[\s"])[A-Za-z0-9.*_\[\]-]+:(?:\d{1,5}|\*):[A-Za-z0-9_*.$-]+:[^:\s"\\]+:((?:[^\s"\\:]|\\[^nrt"])+)(?:$|[\s"]|\\[nr])`)
})

// hasPortField: a ":port:" field followed by a name (":5432:app", ":*:*"),
// the mark of a .pgpass line.
func hasPortField(s string) bool {
	for i := 0; i+3 < len(s); i++ {
		if s[i] != ':' {
			continue
		}
		j := i + 1
		if s[j] == '*' {
			j++
		} else {
			for j < len(s) && j-i <= 5 && s[j] >= '0' && s[j] <= '9' {
				j++
			}
		}
		if j == i+1 || j+1 >= len(s) || s[j] != ':' {
			continue
		}
		if c := s[j+1]; c == '*' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}
