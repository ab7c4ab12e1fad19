package attribution

import (
	"context"
	"iter"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// borrowing says that an agent was shown to hold another session's
// credential from a time on.
type borrowing struct {
	agent string
	since time.Time
}

// Learn adds what an event shows of a credential changing hands: a proxy
// or sensor event that attribution put in one agent's sandbox (by its
// container, pod or IP) carrying a credential issued to another agent.
// Tool calls naming another's credential are learnt by Observe. Call it
// after Apply, in time order; it reports whether the map changed. From
// then on, a use of that credential from outside every sandbox has the
// borrower and the owner as candidates, never the owner alone.
func (id *Identity) Learn(ev *evidence.Event) bool {
	switch ev.AttributedVia {
	case ViaContainer, ViaPod, ViaIP:
	default:
		return false
	}
	if ev.Agent == "" || ev.Source == evidence.SourceLedger {
		return false
	}
	changed := false
	for _, c := range heldCredentials(ev) {
		if owner := id.ownerAt(c, ev.Time); owner != "" && owner != ev.Agent {
			changed = id.borrow(c, ev.Agent, ev.Time) || changed
		}
	}
	return changed
}

// learnNamed learns from a tool call that names another session's
// credential (its command line or arguments).
func (id *Identity) learnNamed(ev *evidence.Event) bool {
	if len(id.credentials) == 0 {
		return false
	}
	changed := false
	for w := range CredentialWords(ev.Cmdline, ev.Message) {
		if !id.credentials[w] {
			continue
		}
		if owner := id.ownerAt(w, ev.Time); owner != "" && owner != ev.Agent {
			changed = id.borrow(w, ev.Agent, ev.Time) || changed
		}
	}
	return changed
}

func (id *Identity) borrow(cred, agent string, t time.Time) bool {
	if id.borrowed == nil {
		id.borrowed = map[string][]borrowing{}
	}
	list := id.borrowed[cred]
	for i, b := range list {
		if b.agent == agent {
			if t.Before(b.since) {
				list[i].since = t
				return true
			}
			return false
		}
	}
	id.borrowed[cred] = append(list, borrowing{agent: agent, since: t})
	return true
}

// borrowers are the agents shown to hold cred at t.
func (id *Identity) borrowers(cred string, t time.Time) []string {
	var out []string
	for _, b := range id.borrowed[cred] {
		if !t.Before(b.since) {
			out = append(out, b.agent)
		}
	}
	return out
}

// ownerAt is the agent a credential was issued to at t: the last session
// issued it that started by then, else the first.
func (id *Identity) ownerAt(cred string, t time.Time) string {
	list := id.byKey[ViaCredential+"\x00"+normalize(ViaCredential, cred)]
	owner := ""
	for _, b := range list {
		if !b.Start.After(t) || owner == "" {
			owner = b.Agent
		}
	}
	return owner
}

// borrowedUse attributes a use of a borrowed credential from outside every
// sandbox: its borrowers and its owner are the candidates.
func (id *Identity) borrowedUse(creds []string, t time.Time) (Attribution, bool) {
	set := map[string]bool{}
	for _, c := range creds {
		bs := id.borrowers(c, t)
		if len(bs) == 0 {
			continue
		}
		for _, b := range bs {
			set[b] = true
		}
		if o := id.ownerAt(c, t); o != "" {
			set[o] = true
		}
	}
	if len(set) == 0 {
		return Attribution{}, false
	}
	cands := make([]string, 0, len(set))
	for a := range set {
		cands = append(cands, a)
	}
	sort.Strings(cands)
	return Attribution{Via: ViaAmbiguous, Candidates: cands}, true
}

// heldCredentials are the credentials an event carries: its credential
// field, and the proxy's user, which is the proxy login.
func heldCredentials(ev *evidence.Event) []string {
	held := ev.Credential
	if ev.Source == evidence.SourceProxy && ev.User != "" {
		held = append(held[:len(held):len(held)], ev.User)
	}
	return held
}

// CredentialWords are the runs of letters, digits, dashes and
// underscores a credential id is made of in each of texts, so that the
// credentials a command line names are found by looking its words up. It
// yields them as it finds them: a replay asks it of every tool call, and
// a slice of them (or the texts joined) was 6% of what a replay allocated.
func CredentialWords(texts ...string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, s := range texts {
			start := -1
			for i := 0; i <= len(s); i++ {
				if i < len(s) && wordByte(s[i]) {
					if start < 0 {
						start = i
					}
					continue
				}
				if start >= 0 {
					if !yield(s[start:i]) {
						return
					}
					start = -1
				}
			}
		}
	}
}

// NamesCredential reports whether text names the credential id cred as a
// whole word: with no letter, digit, dash or underscore on either side.
func NamesCredential(text, cred string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], cred)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(cred)
		if (j == 0 || !wordByte(text[j-1])) && (end == len(text) || !wordByte(text[end])) {
			return true
		}
		i = j + 1
	}
}

// wordByte is a byte a credential id is made of.
func wordByte(c byte) bool {
	return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Again is one event of a re-attribution of stored events in time order,
// as ingest attributed them: a ledger tool call or result is flagged
// (FlagSession) and observed, any other event attributed; each is then
// learnt from, so that a credential seen changing hands decides the uses
// after it as it did when they were first attributed. It reports whether
// the event changed.
func (id *Identity) Again(ev *evidence.Event) bool {
	if ev.Source == evidence.SourceLedger {
		changed := id.FlagSession(ev)
		id.Observe(ev)
		return changed
	}
	changed := Apply(ev, id.Attribute(ev))
	id.Learn(ev)
	return changed
}

// LearnStored learns from the stored events before until (zero: every
// one) what they showed of credentials changing hands, as the pass that
// attributed them learnt it: an identity made from the session records
// alone (SessionIdentity) does not know that a credential was seen in
// another agent's sandbox or named in its tool call, and would give that
// credential's later uses from outside to its owner alone. What it reads
// is the tool calls that may name another session's credential and the
// sandboxes' events that carry one (as heldCredentials reads them); with
// no credential issued there is nothing to learn, and nothing is read.
func (id *Identity) LearnStored(ctx context.Context, src Source, until time.Time) error {
	if len(id.credentials) == 0 {
		return nil
	}
	q := evidence.Or(
		evidence.And(evidence.Term("source", evidence.SourceLedger), evidence.Term("kind", evidence.KindToolCall)),
		evidence.And(evidence.Terms("attributed_via", ViaContainer, ViaPod, ViaIP),
			evidence.Or(evidence.Exists("credential"),
				evidence.And(evidence.Term("source", evidence.SourceProxy), evidence.Exists("user")))))
	if !until.IsZero() {
		q = evidence.And(q, evidence.TimeRange(time.Time{}, until))
	}
	return src.Each(ctx, q, func(ev evidence.Event) error {
		if ev.Source == evidence.SourceLedger {
			id.Observe(&ev)
		} else {
			id.Learn(&ev)
		}
		return nil
	})
}
