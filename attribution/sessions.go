package attribution

import (
	"context"
	"fmt"
	"sort"

	"github.com/cordon-ir/cordon/evidence"
)

// Source is what reading the session records needs of the evidence: the
// events matching a typed query, in time order. evidence.StoreSource and
// the detectors' sources have this shape.
type Source interface {
	Each(ctx context.Context, q evidence.Query, fn func(evidence.Event) error) error
}

// sessionQuery selects the records the identity map is built from: the
// session records, and what tells a responder's exec into a sandbox apart
// from the agent (the people who intervened, the API server's exec
// requests).
var sessionQuery = evidence.MustParse("kind:(session_start OR session_end OR human_intervention) OR (format:k8s-audit AND url:exec)")

var sessionMatch = must(evidence.Compile(sessionQuery))

func must(m *evidence.Matcher, err error) *evidence.Matcher {
	if err != nil {
		panic(err)
	}
	return m
}

// SessionRecord reports whether ev is one of the records ReadSessions
// reads.
func SessionRecord(ev *evidence.Event) bool { return sessionMatch.Match(ev) }

// ReadSessions reads the session records (session_start, session_end),
// with human interventions and Kubernetes exec requests, oldest first: what NewIdentity takes, and what the detectors read before
// any rule.
func ReadSessions(ctx context.Context, src Source) ([]evidence.Event, error) {
	var sessions []evidence.Event
	err := src.Each(ctx, sessionQuery, func(ev evidence.Event) error {
		sessions = append(sessions, ev)
		return nil
	})
	return sessions, err
}

// SessionIdentity builds the identity map (keys to agents over time) from
// the session records in the store.
func SessionIdentity(ctx context.Context, st evidence.Reader) (*Identity, error) {
	sessions, err := ReadSessions(ctx, evidence.StoreSource{Store: st})
	if err != nil {
		return nil, fmt.Errorf("read session records: %w", err)
	}
	id := NewIdentity(sessions)
	if err := ProbeActivity(ctx, evidence.StoreSource{Store: st}, id); err != nil {
		return nil, fmt.Errorf("read session activity: %w", err)
	}
	return id, nil
}

// AttributeAll attributes every proxy and sensor event in place from the
// session records among the events, as ingest will once attribution is
// stored, and returns the identity map it used.
func AttributeAll(events []evidence.Event) *Identity {
	return attributeAll(events, nil)
}

// attributeAll is AttributeAll; keys, when not nil, is set for every event
// the identity map was made from (see AttributeAllKeys).
func attributeAll(events []evidence.Event, keys []bool) *Identity {
	var sessions []evidence.Event
	for i := range events {
		if k := events[i].Kind; k == evidence.KindSessionStart || k == evidence.KindSessionEnd || k == evidence.KindHumanIntervention || events[i].Format == "k8s-audit" {
			sessions = append(sessions, events[i])
		}
	}
	id := NewIdentity(sessions)
	// every session's activity first: a conflict decides the events
	// between the later start and the earlier session's next record too
	latest := map[string]int{} // agent and session -> its latest record
	for i := range events {
		if activityOf(&events[i]) {
			id.noteActivity(events[i].Agent, events[i].Session, events[i].Time)
			k := events[i].Agent + "\x00" + events[i].Session
			if j, ok := latest[k]; !ok || events[i].Time.After(events[j].Time) {
				latest[k] = i
			}
		}
	}
	mark := func(i int) {
		if keys != nil {
			keys[i] = true
		}
	}
	for _, i := range latest {
		mark(i)
	}
	// in time order, so that a credential seen changing hands decides the
	// uses after it
	order := make([]int, len(events))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return events[order[a]].Time.Before(events[order[b]].Time) })
	for _, i := range order {
		ev := &events[i]
		if SessionRecord(ev) {
			mark(i)
		}
		switch {
		case ev.Source == evidence.SourceLedger:
			id.FlagSession(ev)
			if id.Observe(ev) {
				mark(i)
			}
		case Attributable(ev):
			Apply(ev, id.Attribute(ev))
			if id.Learn(ev) {
				mark(i)
			}
		}
	}
	return id
}

// AttributeAllKeys is AttributeAll, also saying which events the identity
// map was made from: the session records (and the responders' records
// beside them), each session's latest record (which decides a binding
// conflict), and every event that showed a credential changing hands (a
// tool call naming another session's credential, a sandbox's traffic
// carrying it). A share of the evidence (one agent's, cordon pull) that
// carries these of every agent attributes its own events as the whole
// evidence does.
func AttributeAllKeys(events []evidence.Event) (*Identity, []bool) {
	keys := make([]bool, len(events))
	return attributeAll(events, keys), keys
}
