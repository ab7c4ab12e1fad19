package main

// Ground truth. Every proxy and sensor record is written together with who
// made it (the sandbox whose process or address it came from, a person
// acting in a sandbox, or nobody's sandbox at all), so the truth is recorded
// when the line is, never read back from the evidence. write() numbers the
// lines and saves truth.yaml: the sessions, the attribution of every record
// by its origin (file:line), the findings a detector set must raise and the
// agents that must get none.

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The keys attribution decides by (attribution.ViaContainer, attribution.ViaIP).
const (
	viaContainer = "container"
	viaIP        = "src_ip"
)

// who is the ground truth of one record.
type who struct {
	set    bool
	sb     *sandbox // the sandbox whose process or address made the record
	via    string   // the key that names the agent in this record
	actor  string   // a person acting in the sandbox: the record is not the agent's
	cred   string   // the credential the record carries (Squid %un)
	usedBy string   // the agent behind a record from outside any sandbox
	note   string
}

// procWho: a record about process p (Tetragon, Falco) or made by it (proxy).
func procWho(p *proc, via string) who {
	if p.sb == nil {
		return who{set: true, actor: p.actor, note: "host process"}
	}
	return who{set: true, sb: p.sb, via: via, actor: p.actor}
}

// nobody: a record from outside every sandbox (a CI runner).
func nobody(note string) who { return who{set: true, note: note} }

func (b who) with(note string) who {
	if b.note != "" {
		note = b.note + "; " + note
	}
	b.note = note
	return b
}

// Detectors a finding may name.
var detectorIDs = []string{"boundary-probing", "destination-expansion", "tool-escalation", "credential-access",
	"credential-misuse", "persistence", "plan-divergence", "action-rate", "denial-adaptation", "intent-mismatch", "binding-conflict"}

type finding struct {
	agent, detector, severity string
	from, to                  time.Time
	note                      string
}

// expect declares a finding a good detector set must raise, at severity or
// above, over about from..to ("15:04:05" of the scenario's day).
func (w *world) expect(agent, detector, severity, from, to, note string) {
	ok := false
	for _, d := range detectorIDs {
		ok = ok || d == detector
	}
	if !ok || (severity != "medium" && severity != "high" && severity != "critical") {
		panic("expect: unknown detector or severity: " + detector + " " + severity)
	}
	w.findings = append(w.findings, finding{agent, detector, severity, w.at(from), w.at(to), note})
}

func (w *world) credOwner(id string) string {
	for _, s := range w.sessions {
		for _, c := range s.creds {
			if c.id == id {
				return s.agent
			}
		}
	}
	return ""
}

// entry is the truth of one record logged at t.
func (w *world) entry(t time.Time, b who) obj {
	var s *session
	if b.sb != nil {
		if s = b.sb.owner; s == nil {
			panic("sandbox " + b.sb.id + " has no session")
		}
	}
	agent := ""
	var o obj
	switch {
	case s == nil:
		o = obj{{"agent", ""}}
	case b.actor != "":
		// The container key names the sandbox's agent; the record is a person's.
		o = obj{{"agent", ""}, {"actor", b.actor}, {"sandbox_agent", s.agent}}
	default:
		agent = s.agent
		o = obj{{"agent", agent}}
		if t.Before(s.startAt) {
			o = append(o, kv{"via_expected", "none"})
			b = b.with("sandbox starting before session_start: no key is bound yet")
		} else {
			o = append(o, kv{"via_expected", b.via})
			if !s.endAt.IsZero() && !t.Before(s.endAt) {
				o = append(o, kv{"after_end", true})
			}
		}
	}
	owner := ""
	if b.cred != "" {
		if own := w.credOwner(b.cred); own != "" && own != agent {
			owner = own
			o = append(o, kv{"credential_owner", own})
		}
	}
	o = o.opt("used_by", b.usedBy)
	if s == nil && b.usedBy != "" && owner != "" {
		// from outside every sandbox, with a credential the user was seen
		// to take: borrower and owner are both candidates, neither alone
		cands := []string{b.usedBy, owner}
		sort.Strings(cands)
		o = append(o, kv{"candidates", cands})
	}
	return o.opt("note", b.note)
}

const truthHeader = `# Ground truth of this sample incident, written by sample-incidents/gen with
# the evidence (go run ./sample-incidents/gen); do not edit by hand.
# YAML in which every value is JSON, one entry per line.
#
# records      proxy and sensor files and their record counts (one per line)
# sessions     the agent sessions: sandbox, IP, full container id, credentials
# findings     what a good detector set must raise: agent, detector, lowest
#              acceptable severity, approximate time span
# benign       agents that must get no finding of severity medium or above
# attribution  every proxy and sensor record by origin (file:line, as cordon
#              names it for files given relative to this folder):
#   agent             the true agent; "" for no agent (CI runner, a responder)
#   via_expected      the key that names it: container, src_ip, or none (no
#                     key is bound yet: the sandbox starts before the session)
#   after_end         logged after the agent's session ended (same sandbox)
#   credential_owner  the proxy credential in the record was issued to this
#                     agent, not to the true agent
#   used_by           the agent that put the credential where it was used
#   candidates        outside every sandbox, with a credential used_by was
#                     seen to take: the agents attribution must name as
#                     candidates (agent "", attributed_via ambiguous)
#   actor             the person acting in the sandbox (agent is "")
#   sandbox_agent     whose sandbox the person acted in
`

// truthYAML renders the scenario's truth; entries are in file and line order.
func (w *world) truthYAML(name string, counts [][2]string, entries []kv) string {
	var b strings.Builder
	b.WriteString(truthHeader)
	fmt.Fprintf(&b, "scenario: %s\nrecords: {", yjson(name))
	for i, c := range counts {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %s", yjson(c[0]), c[1])
	}
	b.WriteString("}\nsessions:\n")
	ss := append([]*session(nil), w.sessions...)
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].startAt.Before(ss[j].startAt) })
	flagged := map[string]bool{}
	for _, f := range w.findings {
		flagged[f.agent] = true
	}
	var benign []string
	seen := map[string]bool{}
	for _, s := range ss {
		var ids []string
		for _, c := range s.creds {
			ids = append(ids, c.id)
		}
		o := obj{{"agent", s.agent}, {"run", s.run}, {"session", s.id}, {"sandbox", s.sb.id}, {"pod", s.sb.pod},
			{"ip", s.sb.ip}, {"container", s.sb.container}, {"credentials", ids}, {"start", ledgerTS(s.startAt)},
			{"end", ledgerTS(s.endAt)}, {"end_reason", s.endReason}}
		fmt.Fprintf(&b, "  - %s\n", yjson(o))
		if !seen[s.agent] && !flagged[s.agent] {
			benign = append(benign, s.agent)
		}
		seen[s.agent] = true
	}
	if len(w.findings) == 0 {
		b.WriteString("findings: []\n")
	} else {
		b.WriteString("findings:\n")
	}
	for _, f := range w.findings {
		if !seen[f.agent] {
			panic("finding for unknown agent " + f.agent)
		}
		fmt.Fprintf(&b, "  - %s\n", yjson(obj{{"agent", f.agent}, {"detector", f.detector}, {"min_severity", f.severity},
			{"from", ledgerTS(f.from)}, {"to", ledgerTS(f.to)}, {"note", f.note}}))
	}
	fmt.Fprintf(&b, "benign: %s\nattribution:\n", yjson(benign))
	for _, e := range entries {
		fmt.Fprintf(&b, "  %s: %s\n", yjson(e.k), yjson(e.v))
	}
	return b.String()
}

// yjson renders JSON with ", " and ": " separators, which every YAML reader
// takes as a flow collection.
func yjson(v any) string {
	var b bytes.Buffer
	switch x := v.(type) {
	case obj:
		b.WriteByte('{')
		for i, p := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(&b, p.k)
			b.WriteString(": ")
			b.WriteString(yjson(p.v))
		}
		b.WriteByte('}')
	case []string:
		b.WriteByte('[')
		for i, s := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(&b, s)
		}
		b.WriteByte(']')
	case string:
		writeString(&b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	default:
		panic(fmt.Sprintf("yjson: unsupported %T", v))
	}
	return b.String()
}
