package attribution

import (
	"sort"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// TagBindingConflict marks an event a binding conflict made ambiguous.
const TagBindingConflict = evidence.TagBindingConflict

// Attribution is who an event belongs to and how that was established.
type Attribution struct {
	Agent string
	// Via is the key that decided: container, pod, src_ip, credential, or
	// "ambiguous" when keys point at different agents.
	Via string
	// Candidates are the agents the keys pointed at (two or more when
	// ambiguous).
	Candidates []string
	// AfterEnd: the key's session had ended and the key was not bound
	// again; the sandbox outlived the session (persistence looks like this).
	AfterEnd bool
	// Binding is the interval that decided, for "how do we know".
	Binding *Binding
	// Contested: a key that decided is in a binding conflict (two sessions
	// acting on it at once); the event is ambiguous between them.
	Contested bool
	// Actor is the person whose exec into the sandbox made the event (Via
	// is ViaResponder, Agent empty).
	Actor string
}

// Attributable reports whether an event carries a key attribution can use.
func Attributable(ev *evidence.Event) bool {
	return ev.Source != evidence.SourceLedger && (ev.Container != "" || ev.Pod != "" || ev.SrcIP != "" || len(ev.Credential) > 0 || ev.User != "")
}

// Attribute decides which agent an event belongs to. Physical keys
// (container, pod, source IP) are trusted before credentials, which can be
// used from anywhere; live bindings before ones whose session had ended. Two
// agents for one event is never resolved by guessing.
func (id *Identity) Attribute(ev *evidence.Event) Attribution {
	if !Attributable(ev) {
		return Attribution{}
	}
	if who := id.responderOf(ev); who != "" {
		return Attribution{Via: ViaResponder, Actor: who}
	}
	physical := []struct{ via, value string }{
		{ViaContainer, ev.Container}, {ViaPod, ev.Pod}, {ViaIP, ev.SrcIP},
	}
	for _, wantEnded := range []bool{false, true} {
		var found []Binding
		var vias []string
		for _, k := range physical {
			bs, ended := id.Lookup(k.via, k.value, ev.Time)
			if ended != wantEnded {
				continue
			}
			for _, b := range bs {
				found = append(found, b)
				vias = append(vias, k.via)
			}
		}
		if a, ok := decide(found, vias, wantEnded); ok {
			return a
		}
	}
	var found []Binding
	var vias []string
	creds := append([]string{}, ev.Credential...)
	if ev.User != "" {
		creds = append(creds, ev.User)
	}
	// outside every sandbox, a credential another agent was shown to hold
	// speaks for neither alone
	if a, ok := id.borrowedUse(creds, ev.Time); ok {
		return a
	}
	for _, c := range creds {
		// A credential speaks for its session only while the session runs:
		// one used after its session ended is not that agent acting, it is
		// a credential loose in the world (and a finding of its own).
		bs, ended := id.Lookup(ViaCredential, c, ev.Time)
		if ended {
			continue
		}
		for _, b := range bs {
			found = append(found, b)
			vias = append(vias, ViaCredential)
		}
	}
	a, _ := decide(found, vias, false)
	return a
}

// decide turns the bindings that matched into an attribution.
func decide(found []Binding, vias []string, afterEnd bool) (Attribution, bool) {
	if len(found) == 0 {
		return Attribution{}, false
	}
	agents := map[string]bool{}
	contested := false
	for _, b := range found {
		agents[b.Agent] = true
		contested = contested || b.Contested
	}
	if len(agents) > 1 {
		var cands []string
		for a := range agents {
			cands = append(cands, a)
		}
		sort.Strings(cands)
		return Attribution{Via: ViaAmbiguous, Candidates: cands, AfterEnd: afterEnd, Contested: contested}, true
	}
	b := found[0]
	return Attribution{Agent: b.Agent, Via: vias[0], Candidates: []string{b.Agent}, AfterEnd: afterEnd, Binding: &b, Contested: contested}, true
}

// Apply sets agent and attributed_via on an event from an attribution, and
// reports whether anything changed. Ledger records keep the agent they name.
// An ambiguous event names its candidates in tags ("candidate:agent-7");
// one a binding conflict made ambiguous is tagged TagBindingConflict too.
func Apply(ev *evidence.Event, a Attribution) bool {
	if ev.Source == evidence.SourceLedger {
		return false
	}
	tags := withoutAttributionTags(ev.Tags)
	if a.Contested {
		tags = append(tags, TagBindingConflict)
	}
	switch {
	case a.Via == ViaResponder:
		tags = append(tags, "actor:"+a.Actor)
	case a.Via == ViaAmbiguous:
		for _, c := range a.Candidates {
			tags = append(tags, "candidate:"+c)
		}
	case a.AfterEnd:
		tags = append(tags, "after-session-end")
	}
	changed := ev.Agent != a.Agent || ev.AttributedVia != a.Via || !equal(ev.Tags, tags)
	ev.Agent, ev.AttributedVia, ev.Tags = a.Agent, a.Via, tags
	return changed
}

func withoutAttributionTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		if strings.HasPrefix(t, "candidate:") || strings.HasPrefix(t, "actor:") || t == "after-session-end" || t == TagBindingConflict {
			continue
		}
		out = append(out, t)
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
