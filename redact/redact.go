package redact

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
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
	// key, when set, is the submatch holding the setting's name: one
	// right after a slash is a file's (/etc/passwd: …), not a setting.
	key int
	// skip, when set, drops a match it finds in the whole match
	// (mailto:x@host is not user:password@host).
	skip *regexp.Regexp
	// gate, when set, is a cheap test the text must pass before the
	// expression runs (after the hints): a one-pass scan where a
	// case-insensitive expression that finds nothing would still read the
	// whole text.
	gate func(text, lower string) bool
}

// assignKey names a setting whose value is a secret; a prefix such as
// DB_ or aws_ is allowed. "credential" is left out on purpose: credential
// ids tie events to agents and are evidence. The short names (pass, pwd,
// pw) must start a word or follow a separator: "db_pass" is one, "bypass"
// is not.
const assignKey = `(?i)([A-Za-z0-9_.-]*(?:password|passwd|passphrase|pass[_-]phrase|secret|secret[_-]?key|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|client[_-]?secret|private[_-]?key|storepass|keypass)|\b(?:[A-Za-z0-9_.-]*[_.-])?(?:pass|pwd|pw))`

var assignHints = []string{"pass", "secret", "token", "key", "pw"}

// assignGate: some word of assignHints is followed, past the rest of its
// name and a quote or blanks, by ':' or '=' — what every assignment has.
func assignGate(_, lower string) bool {
	for _, w := range assignHints {
		for i := strings.Index(lower, w); i >= 0; {
			j := i + len(w)
			for j < len(lower) && (wordByte(lower[j]) || lower[j] == '.' || lower[j] == '-') {
				j++
			}
			for k := 0; k < 4 && j < len(lower) && strings.IndexByte("\\\"' \t", lower[j]) >= 0; k++ {
				j++
			}
			if j < len(lower) && (lower[j] == ':' || lower[j] == '=') {
				return true
			}
			next := strings.Index(lower[i+1:], w)
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return false
}

// patterns all look at the same text (see redactOnce), so their order
// does not matter; where two take overlapping secrets, the union goes.
// Their spaces are blanks, never line breaks (only a PEM body spans
// lines): "passwd=" ending one line must not take the next line's
// "client_secret:" for its value and hide the secret after it.
//
// This package's expressions are compiled when first used, not as the
// program starts: most commands never redact, and compiling them all
// cost every command 5–9 ms of its start.
var patterns = sync.OnceValue(func() []pattern {
	return []pattern{
		{name: "pem", re: regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[A-Za-z0-9+/=\s\\]*)`), group: 0, hints: []string{"private key"}},
		{name: "auth-header", re: regexp.MustCompile(`(?i)\b(?:authorization|proxy-authorization)["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token|digest)[ \t]+([A-Za-z0-9._~+/=-]+)`), group: 1, hints: []string{"authorization"}},
		{name: "bearer", re: regexp.MustCompile(`(?i)\bbearer[ \t]+([A-Za-z0-9._~+/-]{8,}=*)`), group: 1, hints: []string{"bearer"}},
		{name: "url-password", re: regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"'<>]+:([^\s@/"'<>]+)@`), group: 1, hints: []string{"://"}},
		{name: "jwt", re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`), group: 0, hints: []string{"eyj"}},
		{name: "aws-secret", re: regexp.MustCompile(`(?i)aws_?secret(?:_?access)?_?key\\?["']?[ \t]*[:=][ \t]*\\?["']?([A-Za-z0-9/+=]{40})`), group: 1, hints: []string{"aws"}},
		{name: "github", re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`), group: 0, hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
		{name: "gitlab", re: regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`), group: 0, hints: []string{"glpat-"}},
		{name: "slack-token", re: regexp.MustCompile(`\bxox[abpr]-[A-Za-z0-9-]{10,}`), group: 0, hints: []string{"xox"}},
		{name: "slack-webhook", re: regexp.MustCompile(`hooks\.slack\.com/services/([A-Za-z0-9_/]+)`), group: 1, hints: []string{"hooks.slack.com"}},
		{name: "openai", re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}`), group: 0, hints: []string{"sk-"}},
		{name: "stripe", re: regexp.MustCompile(`\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}`), group: 0, hints: []string{"k_live_", "k_test_"}},
		{name: "docker-pat", re: regexp.MustCompile(`\bdckr_pat_[A-Za-z0-9_-]{16,}`), group: 0, hints: []string{"dckr_pat_"}},
		// htpasswd -b[c|m|B...] file user password
		{name: "htpasswd-b", re: regexp.MustCompile(`\bhtpasswd[ \t]+(?:-[A-Za-z]+[ \t]+)*?-[A-Za-z]*b[A-Za-z]*[ \t]+(?:-[A-Za-z]+[ \t]+)*(?:-C[ \t]+\d+[ \t]+)?\S+[ \t]+\S+[ \t]+['"]?([^\s'"]+)`), group: 1, hints: []string{"htpasswd"}},
		// echo pass | sudo -S, printf 'pass\n' | sudo -S
		{name: "sudo-S", re: regexp.MustCompile(`\b(?:echo(?:[ \t]+-[neE]+)?|printf)[ \t]+['"]?([^\s'"|;]+?)(?:\\n)?['"]?[ \t]*\|[ \t]*sudo\b[^|\n]*?\s-[A-Za-z]*S`), group: 1, hints: []string{"sudo"}},
		// user:pass fed to chpasswd by a pipe or a here-string
		{name: "chpasswd-pipe", re: regexp.MustCompile(`['"]?[\w.-]+:([^\s'"|:]+)['"]?[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd\b`), group: 1, hints: []string{"chpasswd"}},
		{name: "chpasswd-herestring", re: regexp.MustCompile(`\bchpasswd\b[^\n]*?<<<[ \t]*['"]?[\w.-]+:([^\s'"]+)`), group: 1, hints: []string{"chpasswd"}},
		// a Squid line's user field holding user:password ("... -> 200 TCP_MISS by user:pass")
		{name: "squid-user", re: regexp.MustCompile(`->[^|\n]*?\bby[ \t]+[^\s:]+:(\S+)`), group: 1, hints: []string{"->"}},
		{name: "assign-dquote", re: regexp.MustCompile(assignKey + `\\?["']?[ \t]*[:=][ \t]*\\?"([^"\\]+)`), group: 2, hints: assignHints, key: 1, gate: assignGate},
		{name: "assign-squote", re: regexp.MustCompile(assignKey + `["]?[ \t]*[:=][ \t]*'([^']+)`), group: 2, hints: assignHints, key: 1, gate: assignGate},
		{name: "assign", re: regexp.MustCompile(assignKey + `\\?["']?[ \t]*[:=][ \t]*([^\s"'\\&,;}\])<>]+)`), group: 2, hints: assignHints, key: 1, gate: assignGate},
	}
})

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

// redactOnce finds the secrets of every cordon pattern and finder in the
// same text, merges overlapping ones and replaces them; then the corpus
// rules do the same on the result, and the entropy rule runs last. Each
// step's secrets pass notSecret first: an identifier a responder acts on
// (an access key id, a service account) and a plain file path stay.
// Applying the patterns one after another to each other's output let one
// replacement take the context another needed: a PEM header's greedy body
// swallowing "redis" of the "redis-cli -a" after it. The corpus runs after
// them so that where both match, cordon's narrower choice of the secret
// stands (the path of a Slack webhook, not its host).
func (r *Redactor) redactOnce(text string) string {
	lower := gateText(text)
	found := cordonSpans(text, lower, true)
	if len(found) > 0 {
		text = r.replaceSpans(text, notSecret(text, found, shownSpans(text, lower)))
		lower = gateText(text)
	}
	if found := corpusSpans(text, lower, nil); len(found) > 0 {
		text = r.replaceSpans(text, notSecret(text, found, shownSpans(text, lower)))
	}
	if !mayHaveEntropyContext(text) {
		return text
	}
	return r.redactEntropy(text)
}

// entropyWords are entropyContext's words: a text that holds none of them
// (lower-cased) has no context for the entropy rule, found without
// running the case-insensitive expression over the whole text.
var entropyWords = []string{"key", "secret", "token", "passw", "bearer", "auth", "signature", "session", "cookie", "private"}

func mayHaveEntropyContext(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			// Unicode case folding (K, the Kelvin sign, is a k to the
			// expression): let the expression decide.
			return entropyContext.MatchString(text)
		}
	}
	return hinted(strings.ToLower(text), entropyWords)
}

// gateText is text lower-cased for the hints and keywords that gate the
// patterns and the corpus, with the word of every placeholder already
// written masked ("[______-3]"): a placeholder names no setting and holds
// no key, and on a later pass the "secret" in each would otherwise wake
// every pattern and rule keyed on that word, over the whole text. Its
// offsets are the lower-cased text's.
func gateText(text string) string {
	return strings.ReplaceAll(strings.ToLower(text), "[secret-", "[______-")
}

// finders are cordon's secret forms that one expression cannot say, or
// not cheaply: the options of commands (a class, and a table by tool),
// .pgpass lines, user:password@host, and base64 that wraps a secret.
var finders = []func(text, lower string, found []span) []span{optionSpans, toolSpans, pgpassSpans, userPassSpans}

// cordonSpans are the secrets cordon's patterns and finders find in text;
// withBase64 adds those wrapped in base64 (decoded text is checked without
// it: one level of wrapping is looked into, not an unbounded nesting).
func cordonSpans(text, lower string, withBase64 bool) []span {
	var found []span
	for _, set := range [][]pattern{patterns(), formPatterns()} {
		for _, p := range set {
			if hinted(lower, p.hints) && (p.gate == nil || p.gate(text, lower)) && p.re.MatchString(text) {
				found = p.spans(text, found)
			}
		}
	}
	for _, f := range finders {
		found = f(text, lower, found)
	}
	if withBase64 {
		found = base64Spans(text, found)
	}
	return found
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
		if p.key > 0 && loc[2*p.key] > 0 && text[loc[2*p.key]-1] == '/' {
			continue
		}
		if p.skip != nil && p.skip.MatchString(text[loc[0]:loc[1]]) {
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
	// '=' only as padding at the end: inside, it joins a name to its
	// value (X-Goog-Date=20261014), which are two tokens.
	entropyToken   = regexp.MustCompile(`[A-Za-z0-9+/_-]{20,}={0,2}`)
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
	shown := shownSpans(text, strings.ToLower(text))
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		for _, p := range outside(span{loc[0], loc[1]}, shown) {
			s, e := p.s, p.e
			tok := text[s:e]
			// Hex strings are digests, container and event ids; UUIDs are
			// ids; a plain path names a file. They are evidence the packet
			// needs intact.
			if e-s < 20 || hexOrUUID.MatchString(tok) || !mixedClasses(tok) || shannon(tok) < entropyThreshold || plainPath(tok, true) || identifierWords(tok) {
				continue
			}
			// A token right after one just redacted is part of the same
			// secret (the dotted parts of a token, a key and its value):
			// were it left, its neighbour's placeholder ("SECRET") would be
			// context enough for a second pass, and redaction would not be
			// stable.
			chained := last > 0 && s-last <= entropyWindow
			if !chained && !entropyContext.MatchString(text[max(0, s-entropyWindow):s]) {
				continue
			}
			b.WriteString(text[last:s])
			b.WriteString(r.placeholder(tok))
			last = e
		}
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// identifierWords: letters only, in words (requestReceivedTimestamp,
// X-Goog-Date): a field or type name, whatever its entropy.
func identifierWords(tok string) bool {
	parts := strings.FieldsFunc(tok, func(r rune) bool { return r == '-' || r == '_' || r == '/' || r == '+' || r == '=' })
	for _, p := range parts {
		if !camelWords(p) {
			return false
		}
	}
	return len(parts) > 0
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
