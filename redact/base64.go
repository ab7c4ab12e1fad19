package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
	"sync"
)

// A secret wrapped in base64 (a Kubernetes Secret's data, a registry's
// config.json, `echo … | base64 -d`) shows none of its own form. A run of
// base64 that could wrap text is decoded, and redacted whole when the text
// holds a secret by cordon's patterns or gitleaks' rules. The cost is
// bounded by the text: each run is decoded once, to at most
// maxBase64Decode bytes, and checked once, without looking into base64
// inside it again.
const (
	minBase64       = 24       // shorter runs are words and ids, and too short to wrap much
	maxBase64Decode = 16 << 10 // a run's head decoded; a longer blob is a file, its head holds its header
	minDecoded      = 12
)

// keyBody finds private key material in base64 without its PEM header
// (a key cut across records, or pasted bare): the starts of an OpenSSH
// key, PKCS#8 and PKCS#1 RSA, DSA, SEC1 and PKCS#8 EC, Ed25519 and an
// encrypted PKCS#8 key, then the rest of the body across line breaks.
var keyBody = sync.OnceValue(func() pattern {
	return pattern{name: "key-body", re: regexp.MustCompile(`\b(?:b3BlbnNzaC1rZXktdjE|MII[A-Za-z0-9+/]{3}IBA(?:DAN|AK)|MIIBuwIBAAKBgQ|MIG[A-Za-z0-9+/]AgEAMBMGByqGSM49|MHcCAQEE|MC4CAQAwBQYDK2Vw|MII[A-Za-z0-9+/]{3}DBOBgkqhkiG9w0BBQ0w)(?:[A-Za-z0-9+/=]|\r?\n|\\r?\\n)*`),
		hints: []string{"b3BlbnNzaC1rZXktdjE", "MII", "MIG", "MHcCAQEE", "MC4CAQAwBQYDK2Vw"}} // in the text as it is
})

// pemWidths are the line widths of a PEM or OpenSSH key body (64, 70) and
// of MIME base64 (76): a whole line of base64 that wide is a piece of a
// key or a wrapped file, whatever record it was cut into.
var pemWidths = map[int]bool{64: true, 70: true, 76: true}

// base64Spans appends the base64 runs of text that wrap a secret or are a
// piece of a key.
func base64Spans(text string, found []span) []span {
	for i := 0; i < len(text); {
		if !base64Byte(text[i]) {
			i++
			continue
		}
		s := i
		for i < len(text) && base64Byte(text[i]) {
			i++
		}
		for pad := 0; pad < 2 && i < len(text) && text[i] == '='; pad++ {
			i++
		}
		if i-s >= minBase64 && wrapsSecret(text, s, i) {
			found = append(found, span{s, i})
		}
	}
	if hinted(text, keyBody().hints) {
		found = keyBody().spans(text, found)
	}
	return found
}

func base64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// wrapsSecret reports whether text[s:e], a run of base64 characters, is a
// whole key-width line or decodes to text that holds a secret.
func wrapsSecret(text string, s, e int) bool {
	run := text[s:e]
	if !mixedClasses(run) || hexOrUUID.MatchString(run) || plainPath(run, true) {
		return false
	}
	if pemWidths[e-s] && wholeLine(text, s, e) && !strings.ContainsAny(run, "-_") {
		return true
	}
	decoded, ok := decodeBase64(run)
	if !ok {
		return false
	}
	lower := strings.ToLower(decoded)
	shown := shownSpans(decoded, lower)
	if len(notSecret(decoded, cordonSpans(decoded, lower, false), shown)) > 0 {
		return true
	}
	return len(notSecret(decoded, corpusSpans(decoded, lower, nil), shown)) > 0
}

// wholeLine: text[s:e] has a line to itself, the line breaks raw or
// written \n inside a JSON string, or the string's quotes.
func wholeLine(text string, s, e int) bool {
	before := s == 0 || text[s-1] == '\n' || text[s-1] == '"' || s >= 2 && text[s-2:s] == `\n`
	after := e == len(text) || text[e] == '\n' || text[e] == '\r' || text[e] == '"' || strings.HasPrefix(text[e:], `\n`) || strings.HasPrefix(text[e:], `\r`)
	return before && after
}

// decodeBase64 decodes run's head (standard or URL alphabet, padded or
// not) and keeps it only if it reads as text: at least minDecoded bytes,
// nine in ten of them printable.
func decodeBase64(run string) (string, bool) {
	enc := base64.RawStdEncoding
	if strings.ContainsAny(run, "-_") {
		if strings.ContainsAny(run, "+/") {
			return "", false
		}
		enc = base64.RawURLEncoding
	}
	run = strings.TrimRight(run, "=")
	n := min(len(run), maxBase64Decode)
	if n%4 == 1 {
		n-- // one character past a whole group carries no byte
	}
	b, err := enc.DecodeString(run[:n])
	if err != nil || len(b) < minDecoded {
		return "", false
	}
	printable := 0
	for _, c := range b {
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\r' || c == '\t' {
			printable++
		}
	}
	if printable*10 < len(b)*9 {
		return "", false
	}
	return string(b), true
}
