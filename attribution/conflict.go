package attribution

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// A key (an IP, a container, a pod, a credential) bound to one session and
// then to another is ordinarily a hand-over: the first session ended or
// fell silent, and what the key does from the second start on is the second
// session's. When both sessions go on acting after the second start, the
// binding is in conflict: a sandbox that claims another's address, a
// session record forged to take over a container. Nothing then decides
// between the two: the first binding stays in force beside the second, so
// every event the second would have taken is ambiguous between both.

// Conflict is two sessions bound to one key, both active after the later
// one's start.
type Conflict struct {
	Via   string `json:"via"`
	Value string `json:"value"`
	// Earlier and Later are the two bindings, by start.
	Earlier Binding `json:"earlier"`
	Later   Binding `json:"later"`
	// EarlierActive is the earlier session's activity after the later
	// start that makes it a conflict (the first such record seen).
	EarlierActive time.Time `json:"earlier_active"`
}

// noteActivity records a ledger record of a session acting at t (the
// latest kept), and reports the earliest later start from which
// attributions change when it makes a new conflict.
func (id *Identity) noteActivity(agent, session string, t time.Time) (from time.Time, changed bool) {
	k := agent + "\x00" + session
	if prev, ok := id.active[k]; ok && !t.After(prev) {
		return time.Time{}, false
	}
	id.active[k] = t
	for _, key := range id.sessionKeys[k] {
		mine := map[time.Time]bool{} // this session's starts on key
		for _, b := range id.byKey[key] {
			if sameSession(b, agent, session) {
				mine[b.Start] = true
			}
		}
		for _, b := range id.byKey[key] {
			// only the pairs this session is in can change
			if !sameSession(b, agent, session) && (b.Ended || !mine[b.End]) {
				continue
			}
			if !id.conflicted(key, b) {
				continue
			}
			seen := key + "\x00" + b.Agent + "\x00" + b.Session + "\x00" + b.Start.String()
			if id.conflictSeen[seen] {
				continue
			}
			id.conflictSeen[seen] = true
			if from.IsZero() || b.End.Before(from) {
				from = b.End
			}
		}
	}
	return from, !from.IsZero()
}

func sameSession(b Binding, agent, session string) bool {
	return b.Agent == agent && b.Session == session
}

// earlierOf is the binding that later succeeded on key: the one closed by
// succession at later's start.
func (id *Identity) earlierOf(key string, later Binding) (Binding, bool) {
	for _, b := range id.byKey[key] {
		if !b.Ended && b.End.Equal(later.Start) && b.Start.Before(later.Start) {
			return b, true
		}
	}
	return Binding{}, false
}

// successorOf is the binding that closed b by succession.
func (id *Identity) successorOf(key string, b Binding) (Binding, bool) {
	if b.Ended || b.End.IsZero() {
		return Binding{}, false
	}
	for _, l := range id.byKey[key] {
		if l.Start.Equal(b.End) && !sameSession(l, b.Agent, b.Session) {
			return l, true
		}
	}
	return Binding{}, false
}

// conflicted reports whether b, closed by its successor's start, was still
// active after it while the successor acted too.
func (id *Identity) conflicted(key string, b Binding) bool {
	later, ok := id.successorOf(key, b)
	if !ok || later.Agent == b.Agent {
		// the same agent's next session taking over its own key is no conflict
		return false
	}
	if end, ok := id.ends[b.Agent+"\x00"+b.Session]; ok && !end.After(later.Start) {
		return false
	}
	early, ok1 := id.active[b.Agent+"\x00"+b.Session]
	late, ok2 := id.active[later.Agent+"\x00"+later.Session]
	return ok1 && ok2 && early.After(later.Start) && !late.Before(later.Start)
}

// effectiveEnd is when b stops being in force: a conflicted binding stays
// in force beside its successor until its own session ends.
func (id *Identity) effectiveEnd(key string, b Binding) time.Time {
	if b.Ended || b.End.IsZero() || !id.conflicted(key, b) {
		return b.End
	}
	if end, ok := id.ends[b.Agent+"\x00"+b.Session]; ok {
		return end
	}
	return time.Time{}
}

// Conflicts returns every binding conflict, by the later start.
func (id *Identity) Conflicts() []Conflict {
	var out []Conflict
	for key, list := range id.byKey {
		for _, b := range list {
			if !id.conflicted(key, b) {
				continue
			}
			later, _ := id.successorOf(key, b)
			out = append(out, Conflict{Via: b.Via, Value: b.Value, Earlier: b, Later: later,
				EarlierActive: id.active[b.Agent+"\x00"+b.Session]})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Later.Start.Equal(out[j].Later.Start) {
			return out[i].Later.Start.Before(out[j].Later.Start)
		}
		return out[i].Via+out[i].Value < out[j].Via+out[j].Value
	})
	return out
}

var errFound = errors.New("found")

// ProbeActivity asks the evidence, for each key that passed from one
// session to another, whether both sessions acted after the hand-over:
// the first ledger record of each after the later start. It is what an
// identity map built from the session records alone needs to know its
// conflicts.
func ProbeActivity(ctx context.Context, src Source, id *Identity) error {
	type probe struct {
		agent, session string
		after          time.Time
	}
	seen := map[probe]bool{}
	var probes []probe
	for key, list := range id.byKey {
		for _, b := range list {
			later, ok := id.successorOf(key, b)
			if !ok || later.Agent == b.Agent {
				continue
			}
			for _, p := range []probe{{b.Agent, b.Session, later.Start}, {later.Agent, later.Session, later.Start}} {
				if !seen[p] {
					seen[p] = true
					probes = append(probes, p)
				}
			}
		}
	}
	for _, p := range probes {
		q := evidence.And(evidence.Term("source", evidence.SourceLedger), evidence.Term("agent", p.agent),
			evidence.Term("session", p.session), evidence.After(p.after),
			evidence.Not(evidence.Terms("kind", evidence.KindSessionStart, evidence.KindSessionEnd)))
		err := src.Each(ctx, q, func(ev evidence.Event) error {
			if ev.Time.After(p.after) {
				id.noteActivity(p.agent, p.session, ev.Time)
				return errFound
			}
			return nil
		})
		if err != nil && !errors.Is(err, errFound) {
			return err
		}
	}
	return nil
}

// activityOf reports whether a ledger record shows its session acting.
func activityOf(ev *evidence.Event) bool {
	return ev.Source == evidence.SourceLedger && ev.Agent != "" && ev.Session != "" &&
		ev.Kind != evidence.KindSessionStart && ev.Kind != evidence.KindSessionEnd
}

// A tool call names its agent and session; the session_start of that
// session names who the gateway issued it to. A call whose agent is not
// the session's is a contradiction between two records: flagged like a
// binding conflict (both agents candidates), its agent kept as written.

// sessionOwner records who a session_start issued the session to.
func (id *Identity) sessionOwner(ev *evidence.Event) {
	if ev.Session == "" || ev.Agent == "" {
		return
	}
	if id.owners == nil {
		id.owners = map[string]string{}
	}
	if _, ok := id.owners[ev.Session]; !ok {
		id.owners[ev.Session] = ev.Agent
	}
}

// FlagSession tags a ledger tool call or result whose session was issued
// to another agent (TagBindingConflict and both candidates), or clears the
// tags when it no longer is; it reports whether the event changed.
func (id *Identity) FlagSession(ev *evidence.Event) bool {
	if ev.Source != evidence.SourceLedger || (ev.Kind != evidence.KindToolCall && ev.Kind != evidence.KindToolResult) {
		return false
	}
	tags := withoutAttributionTags(ev.Tags)
	if owner := id.owners[ev.Session]; owner != "" && ev.Agent != "" && owner != ev.Agent {
		cands := []string{ev.Agent, owner}
		sort.Strings(cands)
		tags = append(tags, TagBindingConflict, "candidate:"+cands[0], "candidate:"+cands[1])
	}
	if equal(tags, ev.Tags) {
		return false
	}
	ev.Tags = tags
	return true
}
