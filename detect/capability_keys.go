package detect

import (
	"github.com/cordon-ir/cordon/capability"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// keys records the keys of a recognizable form (cloud access keys, forge
// and API tokens, private keys) that an agent's tool calls and outputs
// hold, named by the case's keyed placeholders, never by the secret (an
// AWS key by its access key id, which is not secret): one in an output is
// a key it acquired, one in a call is a use of it.
// Credential ids the sessions were issued are left to the credential
// scan, which knows their owners.
func (s *capScan) keys(ev *evidence.Event) {
	if s.secrets == nil || ev.Agent == "" || ev.Source != evidence.SourceLedger ||
		ev.Kind != evidence.KindToolCall && ev.Kind != evidence.KindToolResult {
		return
	}
	text := ev.Raw
	if text == "" {
		text = ev.Cmdline + "\n" + ev.Message
	}
	for _, k := range s.secrets.Keys(text, s.issuedID) {
		c := s.entry(ev.Agent, capability.Credential, k.Name, capability.Acquired)
		if c.How == "" {
			c.CredKind = k.Kind
			call := strings.Join(strings.Fields(ev.Tool+" call "+ev.CallID), " ")
			c.How, c.Provenance = "seen in the output of its "+call, capability.ByPrint
			if ev.Kind == evidence.KindToolCall {
				c.How, c.Provenance = "seen in its "+call, capability.ByName
			}
			c.Acquired = []string{ev.ID}
			s.keyHolders[k.Name] = appendNew(s.keyHolders[k.Name], ev.Agent)
		}
		for _, l := range k.Logged {
			s.keyLogged[l] = k
		}
		if ev.Kind == evidence.KindToolCall {
			c.AddUse(capability.Use{Time: ev.Time, ID: ev.ID, Source: ev.Source, From: "its tool calls"})
		}
	}
}

// keyUse records a use, seen by a service's own log (a cloud audit log
// naming the access key), of a key some agent's tool calls or outputs
// held: each holder's use, and outside every sandbox a place it acted
// from.
func (s *capScan) keyUse(ev *evidence.Event) {
	if s.secrets == nil || len(s.keyHolders) == 0 || ev.Source == evidence.SourceLedger {
		return
	}
	for _, cred := range ev.Credential {
		if s.issuedID(cred) {
			continue
		}
		keys := s.secrets.Keys(cred, nil)
		if k, ok := s.keyLogged[cred]; ok {
			keys = append(keys, k)
		}
		for _, k := range keys {
			for _, agent := range s.keyHolders[k.Name] {
				use := capability.Use{Time: endOf(ev), Dur: capability.Millis(durOf(ev)), ID: ev.ID, Source: ev.Source, Refused: credRefused(ev), From: where(ev)}
				c := s.entry(agent, capability.Credential, k.Name, capability.Acquired)
				c.AddUse(use)
				if ev.SrcIP != "" && !s.sandboxIP(ev.SrcIP, ev.Time) && !s.e.throughEgress(ev.SrcIP) {
					p := s.entry(agent, capability.Place, ev.SrcIP, capability.Acquired)
					if p.How == "" {
						p.Provenance = capability.ByOutside
						p.How = "the " + k.Kind + " " + k.Name + " its tool output held was used from it, outside every sandbox"
						p.Acquired, p.CredKind = []string{ev.ID}, k.Kind
					}
					p.AddUse(capability.Use{Time: endOf(ev), Dur: capability.Millis(durOf(ev)), ID: ev.ID, Source: ev.Source, Refused: use.Refused, From: k.Name})
				}
			}
		}
	}
}

// issuedID reports whether a secret is a credential id a session was
// issued (an AWS access key id as the ledger names it).
func (s *capScan) issuedID(secret string) bool {
	_, ok := s.kinds[secret]
	return ok || s.issued[secret]
}
