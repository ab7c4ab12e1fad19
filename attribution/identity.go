package attribution

import (
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Key kinds that tie an event to a sandbox, in the order attribution trusts
// them: a container or pod is the sandbox itself, an IP is its address on
// the network, a credential can travel.
const (
	ViaContainer  = "container"
	ViaPod        = "pod"
	ViaIP         = "src_ip"
	ViaCredential = "credential"
	ViaAmbiguous  = "ambiguous"
)

// Binding says that a key (an IP, a container, a pod, a credential) belonged
// to an agent's session for an interval.
type Binding struct {
	Via     string    `json:"via"`
	Value   string    `json:"value"`
	Agent   string    `json:"agent"`
	Session string    `json:"session"`
	Sandbox string    `json:"sandbox"`
	Start   time.Time `json:"start"`
	// End is when the session ended (session_end) or the key was bound to
	// another session; zero while open.
	End time.Time `json:"end"`
	// Ended reports that End came from the session's own session_end: the
	// sandbox may live on, and what it does after is the agent's doing
	// until the key is bound again.
	Ended bool `json:"ended"`
	// Contested is set on what Lookup returns when the key is in a
	// binding conflict at the time asked (see Conflict).
	Contested bool `json:"contested,omitempty"`
}

// Identity is the time-interval index of keys to agents.
type Identity struct {
	byKey map[string][]Binding // via + "\x00" + normalized value -> bindings
	// containers are matched by prefix (short and full ids), so they are
	// also kept in a list.
	containers []string
	// ends holds session_end times by agent+session, for sessions whose end
	// arrives before their start (files ingested in any order).
	ends map[string]time.Time
	// credentials are the issued credential ids; borrowed, the agents
	// shown to hold another session's (Learn).
	credentials map[string]bool
	borrowed    map[string][]borrowing
	// active is each session's latest ledger record seen (agent+session);
	// sessionKeys the keys each session is bound to; conflictSeen the
	// conflicts already reported (see conflict.go).
	active       map[string]time.Time
	sessionKeys  map[string][]string
	conflictSeen map[string]bool
	// owners: session id -> the agent its session_start issued it to.
	owners map[string]string
	// resp is what is known of the responders (see responder.go).
	resp *responders
}

// NewIdentity builds the identity map from session_start and session_end
// events (any order; other kinds are ignored).
func NewIdentity(events []evidence.Event) *Identity {
	sorted := append([]evidence.Event(nil), events...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Time.Before(sorted[j].Time) })
	id := newIdentity()
	for i := range sorted {
		id.Observe(&sorted[i])
	}
	return id
}

func newIdentity() *Identity {
	return &Identity{byKey: map[string][]Binding{}, ends: map[string]time.Time{}, active: map[string]time.Time{},
		sessionKeys: map[string][]string{}, conflictSeen: map[string]bool{}}
}

// Observe adds what a session_start or session_end says, what a ledger
// tool call naming another session's credential shows (see Learn), and
// that a session acted (see Conflict); other events are ignored. It
// reports whether the map changed.
func (id *Identity) Observe(ev *evidence.Event) bool {
	_, changed := id.ObserveFrom(ev)
	return changed
}

// ObserveFrom is Observe, also saying from when attributions already made
// may change (zero: from the event's own time).
func (id *Identity) ObserveFrom(ev *evidence.Event) (time.Time, bool) {
	var from time.Time
	if activityOf(ev) {
		from, _ = id.noteActivity(ev.Agent, ev.Session, ev.Time)
	}
	if f, ok := id.observePerson(ev); ok && (from.IsZero() || f.Before(from)) {
		from = f
	}
	changed := id.observe(ev)
	if !from.IsZero() {
		return from, true
	}
	if changed {
		return ev.Time, true
	}
	return time.Time{}, false
}

func (id *Identity) observe(ev *evidence.Event) bool {
	switch {
	case ev.Agent == "":
		return false
	case ev.Kind == evidence.KindSessionEnd:
		return id.end(ev.Agent, ev.Session, ev.Time)
	case ev.Kind == evidence.KindToolCall && ev.Source == evidence.SourceLedger:
		return id.learnNamed(ev)
	case ev.Kind != evidence.KindSessionStart:
		return false
	}
	id.sessionOwner(ev)
	changed := false
	bind := func(via, value string) {
		if value = normalize(via, value); value != "" {
			changed = id.add(Binding{Via: via, Value: value, Agent: ev.Agent, Session: ev.Session, Sandbox: ev.Sandbox, Start: ev.Time}) || changed
		}
	}
	bind(ViaContainer, ev.Container)
	bind(ViaPod, ev.Pod)
	bind(ViaIP, ev.SrcIP)
	for _, c := range ev.Credential {
		bind(ViaCredential, c)
	}
	if t, ok := id.ends[ev.Agent+"\x00"+ev.Session]; ok && !t.Before(ev.Time) {
		id.end(ev.Agent, ev.Session, t)
	}
	return changed
}

// end closes the bindings of a session at t, reporting whether any changed.
func (id *Identity) end(agent, session string, t time.Time) bool {
	k := agent + "\x00" + session
	if prev, ok := id.ends[k]; !ok || t.Before(prev) {
		id.ends[k] = t
	}
	changed := false
	for _, list := range id.byKey {
		for i := range list {
			b := &list[i]
			if b.Agent == agent && b.Session == session && !t.Before(b.Start) && (b.End.IsZero() || b.End.After(t)) {
				b.End, b.Ended = t, true
				changed = true
			}
		}
	}
	return changed
}

// add inserts a binding, closing the open binding of the same key that it
// succeeds. A binding already known (the same session record seen again on
// a re-ingest) changes nothing and reports false.
func (id *Identity) add(b Binding) bool {
	k := b.Via + "\x00" + b.Value
	list := id.byKey[k]
	for _, x := range list {
		if x.Agent == b.Agent && x.Session == b.Session && x.Start.Equal(b.Start) {
			return false
		}
	}
	for i := range list {
		if list[i].Start.Before(b.Start) && (list[i].End.IsZero() || list[i].End.After(b.Start)) {
			list[i].End, list[i].Ended = b.Start, false
		}
		// bound out of order: the next binding closes this one
		if list[i].Start.After(b.Start) && (b.End.IsZero() || list[i].Start.Before(b.End)) {
			b.End, b.Ended = list[i].Start, false
		}
	}
	id.byKey[k] = append(list, b)
	sk := b.Agent + "\x00" + b.Session
	id.sessionKeys[sk] = append(id.sessionKeys[sk], k)
	if b.Via == ViaContainer && len(list) == 0 {
		id.containers = append(id.containers, b.Value)
	}
	if b.Via == ViaCredential {
		if id.credentials == nil {
			id.credentials = map[string]bool{}
		}
		id.credentials[b.Value] = true
	}
	return true
}

// normalize writes a key the way bindings are stored: container ids as bare
// lowercase hex, the rest as written.
func normalize(via, v string) string {
	v = strings.TrimSpace(v)
	if via == ViaContainer {
		if i := strings.Index(v, "://"); i >= 0 {
			v = v[i+3:]
		}
		v = strings.ToLower(v)
		if v == "host" {
			return ""
		}
	}
	return v
}

// Lookup returns the bindings of a key at time t: those in force, or else
// the last one that ended with its session before t and was not followed by
// another (a sandbox that outlived its session). The second result reports
// that the binding had ended.
func (id *Identity) Lookup(via, value string, t time.Time) ([]Binding, bool) {
	value = normalize(via, value)
	if value == "" {
		return nil, false
	}
	keys := []string{via + "\x00" + value}
	if via == ViaContainer {
		keys = keys[:0]
		for _, c := range id.containers {
			if sameContainer(c, value) {
				keys = append(keys, via+"\x00"+c)
			}
		}
	}
	var live []Binding
	var lingering *Binding
	for _, k := range keys {
		from, contested := len(live), false
		for _, b := range id.byKey[k] {
			if end := id.effectiveEnd(k, b); !t.Before(b.Start) && (end.IsZero() || t.Before(end)) {
				// in force past its successor's start: a binding conflict
				contested = contested || !b.End.Equal(end) && !t.Before(b.End)
				live = append(live, b)
				continue
			}
			if b.Ended && !t.Before(b.End) && id.unboundAfter(k, b.End, t) {
				bb := b
				if lingering == nil || bb.End.After(lingering.End) {
					lingering = &bb
				}
			}
		}
		if contested {
			for i := from; i < len(live); i++ {
				live[i].Contested = true
			}
		}
	}
	if len(live) > 0 || lingering == nil {
		return live, false
	}
	return []Binding{*lingering}, true
}

// unboundAfter reports that no binding of key starts in (from, to].
func (id *Identity) unboundAfter(key string, from, to time.Time) bool {
	for _, b := range id.byKey[key] {
		if b.Start.After(from) && !b.Start.After(to) {
			return false
		}
	}
	return true
}

// sameContainer matches container ids given in full (64 hex) or shortened
// (12 hex in Falco and docker ps, 15 or 31 in Tetragon's docker field).
func sameContainer(a, b string) bool {
	if len(a) < 12 || len(b) < 12 {
		return a == b
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return strings.HasPrefix(b, a)
}

// Bindings returns every binding, by key and start, for `cordon agents`.
func (id *Identity) Bindings() []Binding {
	var out []Binding
	for _, list := range id.byKey {
		out = append(out, list...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Agent != out[j].Agent {
			return out[i].Agent < out[j].Agent
		}
		if !out[i].Start.Equal(out[j].Start) {
			return out[i].Start.Before(out[j].Start)
		}
		return out[i].Via+out[i].Value < out[j].Via+out[j].Value
	})
	return out
}
