package detect

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// session is what a session_start granted an agent, for the correlations
// that judge actions against the grant.
type session struct {
	agent, name string
	sandbox     string
	start, end  time.Time // end zero while open
	// gatewayEnd is when the gateway's ledger (the cordon ledger's own
	// format, the record of the harness that issued the session) ended
	// it, and killed whether with reason killed; no other source's end
	// counts for a kill, nor pre-empts one
	gateway    bool // the gateway's ledger started it
	gatewayEnd time.Time
	killed     bool
	objective  string
	workdir    string // the first absolute path the objective names
	tools      []string
	egress     []string
	creds      []string
}

// env is what the engine knows before it reads a rule's events: the
// sessions and the identity map built from them, and what the events so
// far observed of addresses (addrs).
type env struct {
	id      *attribution.Identity
	byAgent map[string][]*session // by start
	byName  map[string][]*session // by session id, by start
	byCred  map[string][]*session // credential id -> sessions issued it
	last    *call                 // the tool call parsed last: the event being added
	cmds    cmdCache              // the commands parsed last (call)
	parsed  *call                 // the event being added parsed by a replay's reader, not yet interned
	strs    map[string]string     // interned values the correlators keep
	kinds   map[string]string     // credential id -> kind, from the session_starts
	egress  map[string]bool       // the addresses sandboxes leave the lab from
	open    map[string]*session   // agent + session -> its session, for its end
	// gatewayOpen is the same for the sessions the gateway's ledger began:
	// a start of another format with the same name never takes their end
	gatewayOpen map[string]*session
	creds       []string // every issued credential id, longest first (issued)
	// credWords are those of creds made of word bytes alone, and
	// credOther says some are not (namedIn); made with creds
	credWords map[string]bool
	credOther bool
	// addrs are the hosts the evidence saw each address serve, from every
	// event added so far (a peer's too): one book for every correlation.
	addrs addrBook
	// learnt counts the session records learnt (those the pass began
	// with, then those it learns as they come): what a correlator made
	// of the sessions before one was learnt may differ
	learnt int
}

// call parses a tool call once for every correlation that reads it.
// Events come one at a time, so only the last is kept for the next
// correlation that reads the same event; the correlations keep what they
// need of it.
func (e *env) call(ev *evidence.Event) *call {
	if c := e.last; c != nil && ev.ID != "" && c.id == ev.ID {
		return c
	}
	if c := e.parsed; c != nil && ev.ID != "" && c.id == ev.ID {
		// parsed by a replay's reader: its strings interned here
		e.parsed = nil
		c.agent, c.tool, c.path = e.intern(c.agent), e.intern(c.tool), e.intern(c.path)
		c.intern(e.intern)
		e.last = c
		return c
	}
	e.last = parseCall(ev, e.intern, &e.cmds)
	return e.last
}

// intern is s as the pass keeps it: one copy of each value, however many
// events name it, and never a piece of a longer string (a program's name
// would otherwise hold its event's whole command line).
func (e *env) intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := e.strs[s]; ok {
		return v
	}
	v := strings.Clone(s)
	e.strs[v] = v
	return v
}

var workdirRe = regexp.MustCompile(`(?:^|\s)(/[\w.\-]+(?:/[\w.\-]+)*)`)

// newEnv builds the environment from session_start and session_end events.
func newEnv(events []evidence.Event) *env {
	e := &env{id: attribution.NewIdentity(events), byAgent: map[string][]*session{}, byName: map[string][]*session{}, byCred: map[string][]*session{}, strs: map[string]string{},
		kinds: map[string]string{}, egress: map[string]bool{}, open: map[string]*session{}, gatewayOpen: map[string]*session{}}
	sort.SliceStable(events, func(i, j int) bool { return events[i].Time.Before(events[j].Time) })
	for i := range events {
		e.learn(&events[i])
	}
	return e
}

// learn adds what a session_start or session_end says, in time order.
func (e *env) learn(ev *evidence.Event) {
	e.learnt++
	k := ev.Agent + "\x00" + ev.Session
	switch ev.Kind {
	case evidence.KindSessionStart:
		if ev.Agent == "" {
			return
		}
		s := &session{agent: ev.Agent, name: ev.Session, sandbox: ev.Sandbox, start: ev.Time, objective: ev.Objective,
			tools: ev.ToolsAllowed, egress: ev.EgressAllowlist, creds: ev.Credential}
		if m := workdirRe.FindStringSubmatch(ev.Objective); m != nil {
			s.workdir = strings.TrimRight(m[1], "./")
		}
		if s.gateway = gateway(ev); s.gateway {
			e.gatewayOpen[k] = s
		} else {
			e.open[k] = s
		}
		e.byAgent[ev.Agent] = append(e.byAgent[ev.Agent], s)
		if s.name != "" {
			e.byName[s.name] = append(e.byName[s.name], s)
		}
		for _, c := range ev.Credential {
			if len(e.byCred[c]) == 0 {
				e.creds = nil // a new one: sorted again when asked
			}
			e.byCred[c] = append(e.byCred[c], s)
		}
		for id, kind := range credentialKinds(ev.Raw) {
			e.kinds[id] = kind
		}
		if ip := egressIP(ev.Raw); ip != "" {
			e.egress[ip] = true
		}
	case evidence.KindSessionEnd:
		s := e.open[k]
		if gateway(ev) || s == nil {
			s = e.gatewayOpen[k]
		}
		if s == nil {
			return
		}
		if s.end.IsZero() {
			s.end = ev.Time
		}
		if gateway(ev) && s.gatewayEnd.IsZero() {
			s.gatewayEnd, s.killed = ev.Time, ev.Status == "killed"
		}
	}
}

// gateway says ev is the gateway ledger's own record: the one record of
// a session's end a kill is taken from (other parsers' events may carry
// source ledger, written by the agent's own telemetry).
func gateway(ev *evidence.Event) bool {
	return ev.Source == evidence.SourceLedger && ev.Format == evidence.LedgerFormat
}

// harnessKills is every agent its harness had stopped at asOf, with the
// time: the gateway's ledger had ended each session it began for the
// agent by then, and every one of those it ended last with reason
// killed. A session the gateway began after it (the agent runs again), or
// one it never ended, undoes it; a session start or end of any other
// source or format (the agent's own telemetry) counts for nothing here.
// A pass knows the sessions it read first whole: what they say after
// asOf is not yet so.
func (e *env) harnessKills(asOf time.Time) map[string]time.Time {
	var out map[string]time.Time
	for agent, list := range e.byAgent {
		var last time.Time
		killed, ended := true, false
		for _, s := range list {
			if !s.gateway || s.start.After(asOf) {
				continue // only the sessions the gateway issued
			}
			if s.gatewayEnd.IsZero() || s.gatewayEnd.After(asOf) {
				ended = false
				break
			}
			switch {
			case !ended || s.gatewayEnd.After(last):
				last, killed, ended = s.gatewayEnd, s.killed, true
			case s.gatewayEnd.Equal(last):
				killed = killed && s.killed // ends at one instant: killed only if all were
			}
		}
		if ended && killed {
			if out == nil {
				out = map[string]time.Time{}
			}
			out[agent] = last
		}
	}
	return out
}

// issued is every issued credential id, longest first (a credential's
// id may be part of a longer one's).
func (e *env) issued() []string {
	if e.creds == nil && len(e.byCred) > 0 {
		e.credWords, e.credOther = make(map[string]bool, len(e.byCred)), false
		for id := range e.byCred {
			e.creds = append(e.creds, id)
			if oneWord(id) {
				e.credWords[id] = true
			} else {
				e.credOther = true
			}
		}
		sort.Slice(e.creds, func(i, j int) bool {
			if len(e.creds[i]) != len(e.creds[j]) {
				return len(e.creds[i]) > len(e.creds[j])
			}
			return e.creds[i] < e.creds[j]
		})
	}
	return e.creds
}

// namedIn is every issued credential that text names as a whole word
// (attribution.NamesCredential), in issued's order. A credential made of
// word bytes alone is named only as one of text's words, whole
// (attribution.CredentialWords): those are looked up by text's words,
// once each, rather than searched for one by one (a tool call's text
// against every credential of the case was 6% of a replay's adding
// goroutine). The others are searched for as before.
func (e *env) namedIn(text string) []string {
	all := e.issued()
	var words []string
	for w := range attribution.CredentialWords(text) {
		if e.credWords[w] && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	if len(words) == 0 && !e.credOther {
		return nil
	}
	var out []string
	for _, c := range all {
		if e.credWords[c] && slices.Contains(words, c) || !e.credWords[c] && attribution.NamesCredential(text, c) {
			out = append(out, c)
		}
	}
	return out
}

// oneWord says id is one of the words CredentialWords finds, whole.
func oneWord(id string) bool {
	for w := range attribution.CredentialWords(id) {
		return w == id
	}
	return false
}

// sessionAt is the agent's session at t: the one in force, else the last
// one started before t, else its first.
func (e *env) sessionAt(agent string, t time.Time) *session {
	list := e.byAgent[agent]
	var best *session
	for _, s := range list {
		if !s.start.After(t) {
			best = s
		}
	}
	if best == nil && len(list) > 0 {
		best = list[0]
	}
	return best
}

// credOwner is the session a credential was issued to at t (the latest
// issued before t, else the first).
func (e *env) credOwner(cred string, t time.Time) *session {
	list := e.byCred[cred]
	var best *session
	for _, s := range list {
		if !s.start.After(t) {
			best = s
		}
	}
	if best == nil && len(list) > 0 {
		best = list[0]
	}
	return best
}

// allowed reports whether host is on the allowlist: exact is set when an
// entry names it, wildcard when only a pattern (*.example.com) admits it.
func allowed(list []string, host string) (exact, wildcard bool) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, a := range list {
		a = strings.ToLower(a)
		switch {
		case a == host:
			return true, false
		case strings.HasPrefix(a, "*.") && strings.HasSuffix(host, a[1:]):
			wildcard = true
		}
	}
	return false, wildcard
}

// underDir reports whether p is dir or inside it.
func underDir(p, dir string) bool {
	return dir != "" && (p == dir || strings.HasPrefix(p, dir+"/"))
}
