package redact

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Redactor replaces secrets with stable placeholders: within one packet
// the same secret is always [SECRET-n], so the model can still see that
// two events used the same credential. Its zero value is ready to use; it
// is not safe for concurrent use.
type Redactor struct {
	ids   map[string]int
	count int
	key   []byte // set by Keyed: placeholders are keyed hashes, not counters
	// seen and order collect, while Keys runs, each secret replaced (by
	// its placeholder) in the order met.
	seen  map[string]string
	order []string
	clean map[string]struct{} // see noteClean
}

// Redact returns text with every secret replaced, using r's placeholders
// (a nil r redacts with a fresh Redactor). This is the one place secrets
// are found; it runs before anything is logged or sent to a model.
func Redact(text string, r *Redactor) string {
	if r == nil {
		r = &Redactor{}
	}
	return r.Redact(text)
}

// Count is how many redactions r made, repeats included.
func (r *Redactor) Count() int { return r.count }

// Secrets is how many distinct secrets r has seen.
func (r *Redactor) Secrets() int { return len(r.ids) }

// Clone returns an independent copy, so that redacting more text (a
// question) keeps a packet's placeholders without changing the packet.
func (r *Redactor) Clone() *Redactor {
	if r == nil {
		return &Redactor{}
	}
	c := &Redactor{count: r.count, ids: make(map[string]int, len(r.ids)), key: r.key}
	for k, v := range r.ids {
		c.ids[k] = v
	}
	return c
}

func (r *Redactor) placeholder(secret string) string {
	if r.ids == nil {
		r.ids = map[string]int{}
	}
	n, ok := r.ids[secret]
	if !ok {
		n = len(r.ids) + 1
		r.ids[secret] = n
	}
	r.count++
	ph := "[SECRET-" + strconv.Itoa(n) + "]"
	if r.key != nil {
		ph = "[SECRET-" + keyedName(r.key, secret) + "]"
	}
	if r.seen != nil {
		if _, ok := r.seen[secret]; !ok {
			r.seen[secret] = ph
			r.order = append(r.order, secret)
		}
	}
	return ph
}

// A pattern finds secrets; group is the submatch that is the secret (0:
// the whole match), the rest of the match is kept for context.
type pattern struct {
	name  string
	re    *regexp.Regexp
	group int
	// hints: the lower-cased text must hold one of them for the pattern to
	// match at all. Checking them first makes redaction several times
	// faster on evidence lines, most of which hold no secret.
	hints []string
}

// assignKey names a setting whose value is a secret; a prefix such as
// DB_ or aws_ is allowed. "credential" is left out on purpose: credential
// ids tie events to agents and are evidence.
const assignKey = `(?i)([A-Za-z0-9_.-]*(?:password|passwd|passphrase|secret|secret[_-]?key|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|client[_-]?secret|private[_-]?key))`

var assignHints = []string{"pass", "secret", "token", "key"}

// patterns all look at the same text (see redactOnce), so their order
// does not matter; where two take overlapping secrets, the union goes.
// Their spaces are blanks, never line breaks (only a PEM body spans
// lines): "passwd=" ending one line must not take the next line's
// "client_secret:" for its value and hide the secret after it.
var patterns = []pattern{
	{"pem", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[A-Za-z0-9+/=\s\\]*)`), 0, []string{"private key"}},
	{"auth-header", regexp.MustCompile(`(?i)\b(?:authorization|proxy-authorization)["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token|digest)[ \t]+([A-Za-z0-9._~+/=-]+)`), 1, []string{"authorization"}},
	{"bearer", regexp.MustCompile(`(?i)\bbearer[ \t]+([A-Za-z0-9._~+/-]{8,}=*)`), 1, []string{"bearer"}},
	{"url-password", regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"'<>]+:([^\s@/"'<>]+)@`), 1, []string{"://"}},
	{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`), 0, []string{"eyj"}},
	{"aws-key-id", regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`), 0, []string{"akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"}},
	{"aws-secret", regexp.MustCompile(`(?i)aws_?secret(?:_?access)?_?key\\?["']?[ \t]*[:=][ \t]*\\?["']?([A-Za-z0-9/+=]{40})`), 1, []string{"aws"}},
	{"github", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`), 0, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{"gitlab", regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`), 0, []string{"glpat-"}},
	{"slack-token", regexp.MustCompile(`\bxox[abpr]-[A-Za-z0-9-]{10,}`), 0, []string{"xox"}},
	{"slack-webhook", regexp.MustCompile(`hooks\.slack\.com/services/([A-Za-z0-9_/]+)`), 1, []string{"hooks.slack.com"}},
	{"openai", regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}`), 0, []string{"sk-"}},
	{"stripe", regexp.MustCompile(`\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}`), 0, []string{"k_live_", "k_test_"}},
	{"docker-pat", regexp.MustCompile(`\bdckr_pat_[A-Za-z0-9_-]{16,}`), 0, []string{"dckr_pat_"}},
	// command-line forms: --password hunter2, -p secret after the tools
	// that take one, curl -u user:pass
	{"flag-secret", regexp.MustCompile(`(?i)(?:^|\s)--?[A-Za-z0-9_.-]*(?:password|passwd|token|secret|api[_-]?key)[ \t]+([^\s"'-][^\s"']*)`), 1, assignHints},
	{"flag-p", regexp.MustCompile(`\b(?:sshpass|mysql|mysqladmin|mysqldump|docker[ \t]+login|podman[ \t]+login|redis-cli|mongo|mongosh)\b[^\n]*?\s-[pa][ \t]*([^\s"'-][^\s"']*)`), 1, []string{"sshpass", "mysql", "login", "redis-cli", "mongo"}},
	{"flag-user", regexp.MustCompile(`(?:^|\s)(?:-u|--user)[ \t]+[^\s:]+:([^\s"']+)`), 1, []string{"-u", "--user"}},
	// ldapsearch -w secret (and the other OpenLDAP clients); -W prompts.
	{"ldap-w", regexp.MustCompile(`\bldap(?:search|modify|add|delete|passwd|whoami|compare|modrdn|exop|url)\b[^\n]*?\s-w[ \t]*['"]?([^\s"']+)`), 1, []string{"ldap"}},
	// smbclient -U user%pass, rpcclient, smbmap, net ... -U
	{"smb-user", regexp.MustCompile(`(?:^|\s)(?:-U|--user(?:name)?)[=\s][ \t]*['"]?[^\s%'"]+%([^\s'"]+)`), 1, []string{"%"}},
	// openssl ... -passin pass:x, -passout pass:x, -pass pass:x, -k / -kfile are files or prompts
	{"openssl-pass", regexp.MustCompile(`(?:^|\s)-pass(?:in|out)?[ \t]+['"]?pass:([^\s'"]+)`), 1, []string{"pass:"}},
	// htpasswd -b[c|m|B...] file user password
	{"htpasswd-b", regexp.MustCompile(`\bhtpasswd[ \t]+(?:-[A-Za-z]+[ \t]+)*?-[A-Za-z]*b[A-Za-z]*[ \t]+(?:-[A-Za-z]+[ \t]+)*(?:-C[ \t]+\d+[ \t]+)?\S+[ \t]+\S+[ \t]+['"]?([^\s'"]+)`), 1, []string{"htpasswd"}},
	// sqlcmd / bcp / osql -P password (for mysql -P is a port)
	{"sqlcmd-P", regexp.MustCompile(`\b(?:sqlcmd|bcp|osql|isql)\b[^\n]*?\s-P[ \t]*['"]?([^\s"'-][^\s"']*)`), 1, []string{"sqlcmd", "bcp", "osql", "isql"}},
	// echo pass | sudo -S, printf 'pass\n' | sudo -S
	{"sudo-S", regexp.MustCompile(`\b(?:echo(?:[ \t]+-[neE]+)?|printf)[ \t]+['"]?([^\s'"|;]+?)(?:\\n)?['"]?[ \t]*\|[ \t]*sudo\b[^|\n]*?\s-[A-Za-z]*S`), 1, []string{"sudo"}},
	// user:pass fed to chpasswd by a pipe or a here-string
	{"chpasswd-pipe", regexp.MustCompile(`['"]?[\w.-]+:([^\s'"|:]+)['"]?[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd\b`), 1, []string{"chpasswd"}},
	{"chpasswd-herestring", regexp.MustCompile(`\bchpasswd\b[^\n]*?<<<[ \t]*['"]?[\w.-]+:([^\s'"]+)`), 1, []string{"chpasswd"}},
	// unzip -P pass, zip -P pass, 7z x -ppass
	{"zip-P", regexp.MustCompile(`\b(?:unzip|zip|zipcloak|funzip)\b[^\n]*?\s-P[ \t]*['"]?([^\s'"]+)`), 1, []string{"zip"}},
	{"7z-p", regexp.MustCompile(`\b7z[ar]?\b[^\n]*?\s-p([^\s'"]+)`), 1, []string{"7z"}},
	// a Squid line's user field holding user:password ("... -> 200 TCP_MISS by user:pass")
	{"squid-user", regexp.MustCompile(`->[^|\n]*?\bby[ \t]+[^\s:]+:(\S+)`), 1, []string{"->"}},
	{"assign-dquote", regexp.MustCompile(assignKey + `\\?["']?[ \t]*[:=][ \t]*\\?"([^"\\]+)`), 2, assignHints},
	{"assign-squote", regexp.MustCompile(assignKey + `["]?[ \t]*[:=][ \t]*'([^']+)`), 2, assignHints},
	{"assign", regexp.MustCompile(assignKey + `\\?["']?[ \t]*[:=][ \t]*([^\s"'\\&,;}\])<>]+)`), 2, assignHints},
}

// Redact returns text with every secret replaced by its placeholder:
// invisible and control characters are taken out first (see normalize),
// then cordon's own patterns, gitleaks' default rules and the entropy
// check run, again until nothing more is found, so that a secret one
// replacement brought together is not left for the next reader.
func (r *Redactor) Redact(text string) string {
	text = normalize(text)
	for range 4 {
		out := r.redactOnce(text)
		if out == text {
			break
		}
		text = out
	}
	return text
}

// redactOnce finds the secrets of every cordon pattern in the same text,
// merges overlapping ones and replaces them; then the corpus rules do the
// same on the result, and the entropy rule runs last. Applying the
// patterns one after another to each other's output let one replacement
// take the context another needed: a PEM header's greedy body swallowing
// "redis" of the "redis-cli -a" after it. The corpus runs after them so
// that where both match, cordon's narrower choice of the secret stands
// (the path of a Slack webhook, not its host).
func (r *Redactor) redactOnce(text string) string {
	lower := strings.ToLower(text)
	var found []span
	for _, p := range patterns {
		if hinted(lower, p.hints) && p.re.MatchString(text) {
			found = p.spans(text, found)
		}
	}
	if len(found) > 0 {
		text = r.replaceSpans(text, found)
		lower = strings.ToLower(text)
	}
	text = r.replaceSpans(text, corpusSpans(text, lower, nil))
	if !entropyContext.MatchString(text) {
		return text
	}
	return r.redactEntropy(text)
}

// span is a secret's place in a text: [s, e).
type span struct{ s, e int }

// replaceSpans replaces each secret, overlapping ones merged into one, by
// its placeholder, in order of position.
func (r *Redactor) replaceSpans(text string, found []span) string {
	if len(found) == 0 {
		return text
	}
	sort.Slice(found, func(i, j int) bool {
		return found[i].s < found[j].s || found[i].s == found[j].s && found[i].e > found[j].e
	})
	var b strings.Builder
	last := 0
	for i := 0; i < len(found); {
		s, e := found[i].s, found[i].e
		for i++; i < len(found) && found[i].s < e; i++ {
			e = max(e, found[i].e)
		}
		b.WriteString(text[last:s])
		b.WriteString(r.placeholder(text[s:e]))
		last = e
	}
	b.WriteString(text[last:])
	return b.String()
}

func hinted(lower string, hints []string) bool {
	for _, h := range hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return len(hints) == 0
}

// spans appends the secrets p finds in text to found.
func (p pattern) spans(text string, found []span) []span {
	for _, loc := range p.re.FindAllStringSubmatchIndex(text, -1) {
		s, e := loc[2*p.group], loc[2*p.group+1]
		if s < 0 || s == e || p.group > 0 && !plausibleValue(text[s:e]) {
			continue
		}
		found = append(found, span{s, e})
	}
	return found
}

// plausibleValue rejects assignment values that are not secrets: another
// placeholder, an empty marker, a number, a boolean.
func plausibleValue(v string) bool {
	if strings.HasPrefix(v, "[SECRET-") || len(v) < 3 {
		return false
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "none", "nil", "***", "<redacted>", "redacted", "[redacted]":
		return false
	}
	return strings.Trim(v, "0123456789") != "" && strings.Trim(v, "*x") != ""
}

// High-entropy strings count as secrets only near a word that says so:
// evidence is full of random-looking ids that are not.
var (
	entropyToken   = regexp.MustCompile(`[A-Za-z0-9+/=_-]{20,}`)
	entropyContext = regexp.MustCompile(`(?i)(key|secret|token|passw|bearer|auth|signature|session[_-]?id|cookie|private)`)
	hexOrUUID      = regexp.MustCompile(`^(?:[0-9a-fA-F]+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$`)
)

// entropyThreshold is in bits per character; random base64 of 20+
// characters scores above it, words and repeated characters below.
const (
	entropyThreshold = 3.5
	entropyWindow    = 32 // bytes before a token searched for a context word
)

func (r *Redactor) redactEntropy(text string) string {
	locs := entropyToken.FindAllStringIndex(text, -1)
	if locs == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		s, e := loc[0], loc[1]
		tok := text[s:e]
		// Hex strings are digests, container and event ids; UUIDs are ids.
		// They are evidence the packet needs intact.
		if hexOrUUID.MatchString(tok) || !mixedClasses(tok) || shannon(tok) < entropyThreshold {
			continue
		}
		// A token right after one just redacted is part of the same secret
		// (the dotted parts of a token, a key and its value): were it
		// left, its neighbour's placeholder ("SECRET") would be context
		// enough for a second pass, and redaction would not be stable.
		chained := last > 0 && s-last <= entropyWindow
		if !chained && !entropyContext.MatchString(text[max(0, s-entropyWindow):s]) {
			continue
		}
		b.WriteString(text[last:s])
		b.WriteString(r.placeholder(tok))
		last = e
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// mixedClasses: at least two of lower case, upper case and digits, which
// words, paths and host names rarely have together.
func mixedClasses(s string) bool {
	var lower, upper, digit int
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			lower = 1
		case c >= 'A' && c <= 'Z':
			upper = 1
		case c >= '0' && c <= '9':
			digit = 1
		}
	}
	return lower+upper+digit >= 2
}

// shannon is the entropy of s in bits per byte.
func shannon(s string) float64 {
	var freq [256]int
	for i := 0; i < len(s); i++ {
		freq[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, c := range freq {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
