package assist

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrOutOfScope: the request asks for something other than defence. Gate
// returns it before any model call.
var ErrOutOfScope = errors.New("request outside the defender scope")

// scopeHelp says what is allowed, for the message a responder reads.
const scopeHelp = "the assistant only helps defend: investigate, explain, attribute, contain and recover from what the agent did. " +
	"It will not write exploits, payloads or malware, evade or bypass the proxy, sensor or detection, escalate privileges, exfiltrate data or weaponise anything. " +
	`Ask about the evidence instead, e.g. "which events show exfiltration", "explain how the agent evaded the proxy" or "how do we block this"`

// Offensive acts. Each names an act; whether asking about it is offensive
// depends on the phrasing around it (see Gate).
var (
	// building an attack artifact
	actBuild = regexp.MustCompile(`\b(write|create|generate|build|craft|make|develop|produce|code|compose|design|improve|obfuscate|modify)\b[^.?!]{0,40}\b(exploits?|payloads?|malware|shellcode|ransomware|backdoors?|rootkits?|keyloggers?|reverse[- ]shells?|trojans?|worms?|droppers?|implants?|c2|command[- ]and[- ]control|zero[- ]days?|0days?)\b`)
	// getting past a control
	actEvade     = regexp.MustCompile(`\b(evad(e|es|ing)|bypass(es|ing)?|circumvent(s|ing)?|gets? around|getting around|gets? past|sneak past|slip past|tunnel(s|ling|ing)?|disabl(e|es|ing)|turn off|blind|tamper with|avoid(s|ing)?|defeat|fool|trick|hide from|break out of|escape from)\b[^.?!]{0,30}\b(prox(y|ies)|sensors?|detections?|detectors?|monitoring|logging|audit|falco|tetragon|edr|firewalls?|egress|allow-?lists?|filters?|sandbox|containment|kill switch|polic(y|ies)|guardrails?|cordon|alerts?)\b`)
	actUnseen    = regexp.MustCompile(`\b(undetect(ed|able)|without (being )?(detected|noticed|caught|flagged|logged|seen)|without triggering)\b`)
	actPrivesc   = regexp.MustCompile(`\b(escalat\w*|elevat\w*)\b[^.?!]{0,20}\bprivileges?\b|\bprivilege escalation\b|\b(get|gain|obtain|become)\w* root\b|\broot (access|shell)\b`)
	actExfil     = regexp.MustCompile(`\bexfiltrat\w*|\bexfil\b|\b(steal|smuggle|leak|dump|harvest|siphon)\b[^.?!]{0,25}\b(data|credentials?|secrets?|keys?|tokens?|passwords?|files?|database)\b`)
	actWeaponise = regexp.MustCompile(`\bweaponi[sz]\w*`)
)

// The responder asking for the act to be done (rather than asking about
// what the agent did): a first-person or imperative request.
var (
	askFor     = regexp.MustCompile(`\b(how (do|can|could|would|should|might|to) (i|we|you|one|someone|an attacker)?|how to|help (me|us)|teach (me|us)|show (me|us) how|give (me|us)|i want|i need|we need|we want|let'?s|can you|could you|would you|please|steps to|ways? to|instructions (for|to)|guide (to|for)|tutorial)\b`)
	imperative = regexp.MustCompile(`^(now |then |just |also )?(write|create|generate|build|craft|make|develop|produce|code|compose|design|obfuscate|evade|bypass|circumvent|disable|escalate|elevate|exfiltrate|steal|smuggle|leak|dump|harvest|tunnel|weaponi[sz]e|get|gain|sneak|hide)\b`)
	// Defensive purpose: with it, a request about an act is about stopping it.
	// Building an attack artifact is defence only when what is built is a
	// detection ("write a yara rule for the payload"), not when the purpose
	// named is ("write an exploit so we can investigate").
	defendArtifact = regexp.MustCompile(`\b(yara|sigma|rules?|signatures?|detections?|detectors?|alerts?|indicators?|iocs?|queries|query|filters?|blocklists?|denylists?)\b`)
	defend         = regexp.MustCompile(`\b(detect\w*|block\w*|prevent\w*|stop\w*|contain(ment)?|containing|mitigat\w*|harden\w*|remediat\w*|defend\w*|protect\w*|investigat\w*|explain\w*|attribut\w*|yara|sigma|rules?|signatures?|alert\w*|indicators?|iocs?|patch\w*|fix\w*|revok\w*|rotat\w*|monitor for|audit for|hunt for|kill)\b`)
)

// Gate refuses a request outside defence before anything is sent: asks to
// write exploits, payloads or malware, to evade or bypass the proxy, sensor
// or detection, to escalate privileges, to exfiltrate or to weaponise.
// Questions about what the agent did ("explain how the agent evaded the
// proxy", "which events show exfiltration") and how to stop it ("how do we
// block this") pass. An unknown task is refused too.
func Gate(task Task, question string) error {
	if !task.Valid() {
		return fmt.Errorf("%w %q: want one of %s", ErrUnknownTask, task, taskList())
	}
	if offensive(question) {
		return fmt.Errorf("%w: %s", ErrOutOfScope, scopeHelp)
	}
	return nil
}

// offensive judges each sentence: an offensive act asked for in the first
// person or the imperative, with no defensive purpose once the act's own
// words are set aside ("evades detection" does not make a request about
// detection).
func offensive(question string) bool {
	q := strings.ToLower(strings.Join(strings.Fields(question), " "))
	for _, s := range sentences(q) {
		acts := []*regexp.Regexp{actBuild, actEvade, actUnseen, actPrivesc, actExfil, actWeaponise}
		hit := false
		for _, re := range acts {
			if re.MatchString(s) {
				hit = true
				break
			}
		}
		if !hit || !(askFor.MatchString(s) || imperative.MatchString(s)) {
			continue
		}
		rest := actUnseen.ReplaceAllString(actEvade.ReplaceAllString(s, " "), " ")
		if actBuild.MatchString(s) {
			if defendArtifact.MatchString(rest) {
				continue
			}
			return true
		}
		if defend.MatchString(rest) {
			continue
		}
		return true
	}
	return false
}

// sentences splits on sentence ends and "then"/";", so that "summarize,
// then write an exploit" is judged on its second half alone.
func sentences(q string) []string {
	q = strings.NewReplacer(";", ".", " then ", ". ", " and then ", ". ").Replace(q)
	var out []string
	for _, s := range strings.FieldsFunc(q, func(r rune) bool { return r == '.' || r == '?' || r == '!' || r == '\n' }) {
		if s = strings.TrimSpace(strings.TrimLeft(s, " ,:-")); s != "" {
			out = append(out, s)
		}
	}
	return out
}
