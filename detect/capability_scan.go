package detect

import (
	"encoding/json"
	"github.com/cordon-ir/cordon/capability"
	"regexp"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/redact"
)

// capQuery selects what the capability scan reads: everything that grants,
// acquires, uses or ends a capability.
// Processes are all read: the clock-skew estimate pairs their execs with
// tool calls, and the capability set keeps the detached ones and their
// exits.
var capQuery = evidence.MustParse("kind:(human_intervention OR tool_call OR tool_result OR cred_access OR file_write " +
	"OR net_request OR proc_exec OR proc_exit OR session_end OR sensor_gap) OR source:(proxy OR sensor OR audit) OR credential:* OR tags:cred-read")

// capScan builds every agent's capability set in one pass over the
// evidence, in time order. It is fed like a correlator and finished once.
type capScan struct {
	e      *env
	caps   map[string]map[capKey]*capability.Capability // agent -> kind and value -> entry
	kinds  map[string]string                            // credential id -> kind from its session_start
	issued map[string]bool                              // issued credential ids
	borrow map[string][]string                          // credential -> agents that acquired it, in order
	jobs   map[string]*capability.Capability            // tool call id -> job waiting for its result
	reads  map[string]evidence.Event                    // tool call id -> credential read waiting for its result
	pids   map[pidKey]*capability.Capability            // pid in its container -> detached process
	procs  map[string]*capability.Capability            // exec id -> detached process
	ends   map[string][]endMark                         // a name (credential, job, pid, file, sandbox) -> who says they ended it
	auth   map[string][]capability.End                  // a key (credential, pod) -> its issuer's record of its end
	calls  map[string]*callUse                          // tool call id -> the call waiting for its result
	bytes  map[*capability.Capability]sourceBytes       // data out: bytes per source
	// secrets names the keys in tool calls and outputs (nil: none are
	// looked for); keyHolders are the agents that held each, by placeholder.
	secrets    *redact.Redactor
	keyHolders map[string][]string
	keyLogged  map[string]redact.Key // a key's logged form (GitHub's hashed_token) -> the key
	// cov is what each source reported: its watermark and gaps.
	cov *capability.Coverage
	// workloads are the objects agents created through an API, by
	// namespace/name (a job's pods too); minted the access keys they made.
	workloads map[string][]*capability.Capability
	minted    map[string][]*capability.Capability
	// touched are the agents whose capabilities changed since the last
	// view (Pass.View), changed those capabilities, touchedAll that
	// something every agent's finishing reads did (a session learnt).
	touched    map[string]bool
	changed    map[*capability.Capability]bool
	touchedAll bool
	// changedOf is changed by agent, in the order they changed
	changedOf map[string][]*capability.Capability
	// thinning are the capabilities a sweep looks at to thin (thin): those
	// touched since the last sweep and those the last left due, each once
	// (inThinning)
	thinning   []*capability.Capability
	inThinning map[*capability.Capability]bool
	// endKeys are the keys an end was recorded under since the last view
	// (endRecorded): the capabilities whose finishing reads one changed
	endKeys map[string]bool
	// jobTools says of each tool name asked whether it queues jobs
	// (jobTool)
	jobTools map[string]bool
}

func newCapScan(e *env, sessions []evidence.Event, secrets *redact.Redactor) *capScan {
	s := &capScan{e: e, caps: map[string]map[capKey]*capability.Capability{}, kinds: map[string]string{},
		borrow: map[string][]string{}, jobs: map[string]*capability.Capability{}, reads: map[string]evidence.Event{},
		procs: map[string]*capability.Capability{}, pids: map[pidKey]*capability.Capability{}, ends: map[string][]endMark{}, auth: map[string][]capability.End{}, calls: map[string]*callUse{}, secrets: secrets, keyHolders: map[string][]string{}, keyLogged: map[string]redact.Key{}, cov: capability.NewCoverage(),
		workloads: map[string][]*capability.Capability{}, minted: map[string][]*capability.Capability{}, touched: map[string]bool{},
		changed: map[*capability.Capability]bool{}, changedOf: map[string][]*capability.Capability{}, inThinning: map[*capability.Capability]bool{},
		jobTools: map[string]bool{}}
	s.issued = map[string]bool{}
	for i := range sessions {
		s.grant(&sessions[i])
	}
	return s
}

// grant adds what a session_start grants its agent: its credentials and
// its place.
func (s *capScan) grant(ev *evidence.Event) {
	if ev.Kind != evidence.KindSessionStart || ev.Agent == "" {
		return
	}
	s.touchedAll = true // a session learnt late: conservatively, every set
	for _, cr := range ev.Credential {
		s.issued[cr] = true
	}
	for id, kind := range credentialKinds(ev.Raw) {
		s.kinds[id] = kind
	}
	for _, cr := range ev.Credential {
		c := s.entry(ev.Agent, capability.Credential, cr, capability.Granted)
		c.Owner, c.CredKind = ev.Agent, s.kinds[cr]
		if c.How == "" {
			c.How, c.Provenance = "issued to session "+ev.Session, capability.ByGrant
		}
		c.Acquired = appendEvent(c.Acquired, ev)
	}
	if ev.SrcIP != "" || ev.Container != "" {
		key := ev.SrcIP
		if key == "" {
			key = ev.Container
		}
		c := s.entry(ev.Agent, capability.Place, key, capability.Granted)
		if c.How == "" {
			c.Provenance = capability.ByGrant
			c.How = "its sandbox " + strings.TrimSpace(ev.Sandbox+" "+shortID(ev.Container))
		}
		c.Acquired = appendEvent(c.Acquired, ev)
	}
}

// credentialKinds reads the kind of each credential a ledger session_start
// issues ({"credentials":[{"id":…,"kind":…}]}); other formats give none.
func credentialKinds(raw string) map[string]string {
	if !strings.Contains(raw, `"credentials"`) {
		return nil
	}
	var r struct {
		Credentials []struct{ ID, Kind string } `json:"credentials"`
	}
	if json.Unmarshal([]byte(raw), &r) != nil {
		return nil
	}
	out := map[string]string{}
	for _, c := range r.Credentials {
		if c.ID != "" {
			out[c.ID] = c.Kind
		}
	}
	return out
}

func shortID(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// capKey is what an agent's capability is kept by: its kind and value
// (the value's bytes are the capability's own).
type capKey struct {
	kind  capability.Kind
	value string
}

func (s *capScan) entry(agent string, kind capability.Kind, value string, origin capability.Origin) *capability.Capability {
	m := s.caps[agent]
	if m == nil {
		m = map[capKey]*capability.Capability{}
		s.caps[agent] = m
	}
	k := capKey{kind, value}
	c := m[k]
	if c == nil {
		c = &capability.Capability{Agent: agent, Kind: kind, Value: value, Origin: origin}
		m[k] = c
	}
	s.touch(c) // what asks for it changes it
	return c
}

func (s *capScan) has(agent string, kind capability.Kind, value string) bool {
	_, ok := s.caps[agent][capKey{kind, value}]
	return ok
}

func (s *capScan) add(_ int, ev *evidence.Event) {
	switch {
	case ev.Kind == evidence.KindHumanIntervention:
		s.intervention(ev)
	case ev.Source == evidence.SourceLedger && ev.Kind == evidence.KindToolCall:
		s.toolCall(ev)
		if ev.Agent != "" {
			s.call(ev)
		}
	case ev.Source == evidence.SourceLedger && ev.Kind == evidence.KindToolResult:
		s.toolResult(ev)
		s.result(ev)
	}
	s.cov.Observe(ev)
	for _, cred := range credentials.Revoked(ev.Tags) {
		// the service's own record of the revocation, whoever made it
		e := capability.End{At: ev.Time, How: "revoked", ID: ev.ID, By: issuerName(ev), Source: ev.Source, Authority: capability.Authoritative}
		s.auth[cred] = append(s.auth[cred], e)
		s.endRecorded(cred)
		if s.secrets != nil {
			// a key its tool output held, by its name (a placeholder, or an access key id)
			for _, k := range s.secrets.Keys(cred, nil) {
				s.auth[k.Name] = append(s.auth[k.Name], e)
				s.endRecorded(k.Name)
			}
		}
	}
	if pod := deletedPod(ev); pod != "" {
		// the orchestrator's own record that the pod is gone, and with it
		// what ran or was written in it
		s.auth[pod] = append(s.auth[pod], capability.End{At: ev.Time, How: "pod " + pod + " deleted", ID: ev.ID, By: issuerName(ev), Source: ev.Source, Authority: capability.Authoritative})
		s.endRecorded(pod)
	}
	if ev.Kind == evidence.KindSessionEnd && ev.Source == evidence.SourceLedger && ev.Session != "" {
		s.sessionEnd(ev)
	}
	if cands := conflictCandidates(ev); len(cands) > 0 {
		// two sessions claimed the key: a use of every candidate's
		for _, a := range cands {
			c := *ev
			c.Agent, c.AttributedVia = a, physicalVia(ev)
			s.agentEvent(&c)
		}
	} else {
		s.agentEvent(ev)
	}
}

// agentEvent is what an event adds to its agent's capabilities: reads,
// uses, creations. A binding conflict's events are each candidate's.
func (s *capScan) agentEvent(ev *evidence.Event) {
	if ev.Agent != "" && (ev.Kind == evidence.KindCredAccess || hasTag(ev.Tags, credentials.TagCredRead)) {
		switch {
		case ev.Decision == evidence.DecisionDeny || ev.Decision == evidence.DecisionError:
			// refused or failed: the secret was not read
		case ev.Source == evidence.SourceLedger && ev.Kind == evidence.KindToolCall && ev.CallID != "":
			// a tool call reads only if its result says it ran
			s.reads[ev.CallID] = *ev
		default:
			s.secretRead(ev)
		}
	}
	s.credentialUse(ev)
	s.workload(ev)
	s.githubObject(ev)
	s.mintedUse(ev)
	s.keys(ev)
	s.keyUse(ev)
	s.dataOut(ev)
	s.process(ev)
	s.persisted(ev)
}

// conflictCandidates are the agents a binding conflict left an event
// between; nil for any other event.
func conflictCandidates(ev *evidence.Event) []string {
	if ev.Agent != "" || !hasTag(ev.Tags, attribution.TagBindingConflict) {
		return nil
	}
	var out []string
	for _, t := range ev.Tags {
		if a, ok := strings.CutPrefix(t, "candidate:"); ok {
			out = append(out, a)
		}
	}
	return out
}

// physicalVia is the key a conflicted event was attributed by.
func physicalVia(ev *evidence.Event) string {
	switch {
	case ev.Container != "":
		return attribution.ViaContainer
	case ev.Pod != "":
		return attribution.ViaPod
	case ev.SrcIP != "":
		return attribution.ViaIP
	}
	return attribution.ViaCredential
}

// endRe finds a verb that ends something followed by the words that name
// what it ended.
var endRe = regexp.MustCompile(`(?i)\b((?:revok|rotat|disabl|invalidat|expir|delet|remov|cancel|stopp|abort|kill|terminat)\w*)\s+`)

// endMark is a person's intervention that may end what its words name:
// a claim, shown beside the verdict, never an end by itself.
type endMark struct {
	capability.End
	verb string // lowercased: revoked, cancelled, killed, deleted
}

// The verbs that end each kind of capability: a credential is revoked, not
// killed; a process is killed, not revoked.
var endVerbs = map[capability.Kind][]string{
	capability.Credential: {"revok", "rotat", "disabl", "invalidat", "expir", "delet"},
	capability.Job:        {"cancel", "stopp", "abort", "kill", "delet", "terminat"},
	capability.Process:    {"kill", "stopp", "terminat", "delet", "remov"},
	capability.Schedule:   {"remov", "delet", "disabl"},
	capability.Persisted:  {"remov", "delet", "disabl", "quarantin"},
}

// fillers are the nouns between an ending verb and the name of what it
// ended ("revoked credential px-s228", "cancelled CI job ci-88213").
var fillers = map[string]bool{"the": true, "a": true, "credential": true, "credentials": true, "token": true,
	"key": true, "job": true, "ci": true, "sandbox": true, "pod": true, "container": true, "session": true,
	"background": true, "process": true, "file": true, "unit": true, "webhook": true, "proxy": true}

// postfixRe is the other order: "pod sandbox-sb-77 deleted".
var postfixRe = regexp.MustCompile(`(?i)\b(?:pod|container|sandbox)\s+(\S+)\s+((?:delet|remov|destroy)\w*)`)

// pidRe names a process by its pid ("pid 182095").
var pidRe = regexp.MustCompile(`(?i)\bpid\s+(\d+)`)

// intervention records what a person says they ended: the first word
// after an ending verb that is not a filler noun, a pod or sandbox named
// as deleted, and a process named by its pid. The record is the ledger's,
// which nothing but the issuer's own log corroborates: each is a claimed
// end.
func (s *capScan) intervention(ev *evidence.Event) {
	how := strings.TrimSpace(ev.Message)
	if i := strings.IndexAny(how, "\n"); i >= 0 {
		how = how[:i]
	}
	mark := func(name, verb string) {
		name = strings.Trim(name, ".:()'\"`")
		if name != "" {
			e := capability.End{At: ev.Time, How: clip(how, 100), ID: ev.ID, By: "a human_intervention record (" + ev.ID + ")", Source: ev.Source, Authority: capability.Claimed}
			s.ends[name] = append(s.ends[name], endMark{End: e, verb: strings.ToLower(verb)})
			s.endRecorded(name)
		}
	}
	for _, m := range endRe.FindAllStringSubmatchIndex(ev.Message, -1) {
		verb := ev.Message[m[2]:m[3]]
		tail := ev.Message[m[1]:]
		if i := strings.IndexAny(tail, ";,"); i >= 0 {
			tail = tail[:i]
		}
		for _, w := range strings.Fields(tail) {
			if !fillers[strings.ToLower(strings.Trim(w, ".:"))] {
				mark(w, verb)
				break
			}
		}
		for _, p := range pidRe.FindAllStringSubmatch(tail, -1) {
			mark("pid:"+p[1], verb)
		}
	}
	for _, m := range postfixRe.FindAllStringSubmatch(ev.Message, -1) {
		mark(m[1], m[2])
	}
}

// ended is the first intervention that claims to end a capability of
// kind named n.
func (s *capScan) ended(kind capability.Kind, n string) (endMark, bool) {
	for _, m := range s.ends[n] {
		for _, v := range endVerbs[kind] {
			if strings.HasPrefix(m.verb, v) {
				return m, true
			}
		}
	}
	return endMark{}, false
}

// jobToolRe names tools that queue work outside the agent.
var jobToolRe = regexp.MustCompile(`(?i)(submit|schedule|enqueue|queue|dispatch|trigger|workflow|cron|deploy)`)

// jobTool reports whether tool queues work outside the agent (jobToolRe),
// asked once per tool name: an incident's calls name a few tools, and a
// million calls asked the expression a million times. Past maxJobTools
// names (hostile ledgers name thousands) the expression is asked again.
func (s *capScan) jobTool(tool string) bool {
	if is, ok := s.jobTools[tool]; ok {
		return is
	}
	is := jobToolRe.MatchString(tool)
	if len(s.jobTools) < maxJobTools {
		s.jobTools[s.e.intern(tool)] = is
	}
	return is
}

const maxJobTools = 1024

// jobIDRe finds the id a queuing tool answered with ("job ci-88213 queued").
var jobIDRe = regexp.MustCompile(`(?i)\b(?:job|run|build|pipeline|task|workflow)[ _#:=-]*(?:id[ :=]*)?([A-Za-z0-9][\w.-]*\d[\w.-]*)`)

func (s *capScan) toolCall(ev *evidence.Event) {
	if ev.Agent == "" {
		return
	}
	for _, cred := range s.named(ev.Cmdline, ev.Message) {
		owner := s.e.credOwner(cred, ev.Time)
		if owner == nil {
			continue
		}
		use := capability.Use{Time: ev.Time, ID: ev.ID, Source: ev.Source, From: "its tool calls"}
		if owner.agent == ev.Agent {
			s.entry(ev.Agent, capability.Credential, cred, capability.Granted).AddUse(use)
			continue
		}
		c := s.acquire(ev.Agent, cred, owner.agent, ev)
		if c.How == "" {
			c.Provenance = capability.ByName
			c.How = "named in its tool call " + ev.CallID + " (" + ev.Tool + ")"
		}
		c.AddUse(use)
	}
	if ev.Tool != "" && ev.CallID != "" && s.jobTool(ev.Tool) {
		c := &capability.Capability{Agent: ev.Agent, Kind: capability.Job, Origin: capability.Acquired,
			How: "queued by " + ev.Tool + " (" + ev.CallID + ")", Acquired: []string{ev.ID},
			Uses: []capability.Use{{Time: ev.Time, ID: ev.ID, Source: ev.Source}}}
		s.jobs[ev.CallID] = c
	}
}

func (s *capScan) toolResult(ev *evidence.Event) {
	if _, ok := s.reads[ev.CallID]; ok {
		// copied out here only: secretRead takes its address, which
		// would put a copy of an event on the heap at every result
		call := s.reads[ev.CallID]
		delete(s.reads, ev.CallID)
		if ev.Decision != evidence.DecisionDeny && ev.Decision != evidence.DecisionError {
			s.secretRead(&call)
		}
	}
	if ev.Agent != "" && ev.Decision != evidence.DecisionDeny && ev.Status != "denied" {
		// another session's credential the tool printed to it
		for _, cred := range s.named(ev.Message) {
			owner := s.e.credOwner(cred, ev.Time)
			if owner == nil || owner.agent == ev.Agent {
				continue
			}
			c := s.acquire(ev.Agent, cred, owner.agent, ev)
			if c.How == "" {
				c.How, c.Provenance = "printed in the output of its tool call "+ev.CallID, capability.ByPrint
			}
		}
	}
	c := s.jobs[ev.CallID]
	if c == nil {
		return
	}
	delete(s.jobs, ev.CallID)
	if ev.Status != "" && ev.Status != "ok" {
		return
	}
	value := "call " + ev.CallID
	if m := jobIDRe.FindStringSubmatch(ev.Message); m != nil {
		value = m[1]
	}
	e := s.entry(c.Agent, capability.Job, value, capability.Acquired)
	e.How, e.Acquired, e.Provenance = c.How, append(c.Acquired, ev.ID), capability.ByQueue
	for _, u := range c.Uses {
		e.AddUse(u)
	}
	e.AddUse(capability.Use{Time: ev.Time, ID: ev.ID, Source: ev.Source})
}

// named are the issued credentials texts name as whole words.
func (s *capScan) named(texts ...string) []string {
	var out []string
	for w := range attribution.CredentialWords(texts...) {
		if _, ok := s.kinds[w]; ok || s.issued[w] {
			out = appendNew(out, w)
		}
	}
	return out
}

// acquire records that agent holds another agent's credential.
func (s *capScan) acquire(agent, cred, owner string, ev *evidence.Event) *capability.Capability {
	c := s.entry(agent, capability.Credential, cred, capability.Acquired)
	c.Owner, c.CredKind = owner, s.kinds[cred]
	if len(c.Acquired) == 0 {
		c.Acquired = []string{ev.ID}
	}
	if b := s.borrow[cred]; len(b) == 0 || b[len(b)-1] != agent {
		s.borrow[cred] = appendNew(b, agent)
	}
	return c
}

func hasTag(tags []string, t string) bool {
	for _, x := range tags {
		if x == t {
			return true
		}
	}
	return false
}

// credRefused says a use of a credential was refused as a credential (the
// proxy's 407, a 401, a cloud's answer to an unknown or disabled key),
// not merely for where it went.
func credRefused(ev *evidence.Event) bool {
	return ev.Status == "407" || ev.Status == "401" || hasTag(ev.Tags, credentials.TagCredRefused)
}

// credentialUse records the use of an issued credential by a proxy or
// sensor event: its owner's, a borrower's from its own sandbox, or a use
// from outside every sandbox, which is each borrower's (and makes that host
// a place the borrower acted from).
func (s *capScan) credentialUse(ev *evidence.Event) {
	if ev.Source == evidence.SourceLedger {
		return
	}
	held := ev.Credential
	if ev.Source == evidence.SourceProxy && ev.User != "" {
		held = append(held[:len(held):len(held)], ev.User)
	}
	for _, cred := range held {
		owner := s.e.credOwner(cred, ev.Time)
		if owner == nil {
			continue
		}
		use := capability.Use{Time: endOf(ev), Dur: capability.Millis(durOf(ev)), ID: ev.ID, Source: ev.Source, Refused: credRefused(ev), From: where(ev)}
		sandboxed := ev.Agent != "" && (ev.AttributedVia == attribution.ViaContainer || ev.AttributedVia == attribution.ViaPod || ev.AttributedVia == attribution.ViaIP)
		if sandboxed && ev.Agent != owner.agent {
			c := s.acquire(ev.Agent, cred, owner.agent, ev)
			if c.How == "" {
				c.How, c.Provenance = "used from its sandbox ("+use.From+")", capability.ByUse
			}
			c.AddUse(use)
			continue
		}
		own := s.entry(owner.agent, capability.Credential, cred, capability.Granted)
		own.Owner = owner.agent
		own.AddUse(use)
		if sandboxed || s.e.throughEgress(ev.SrcIP) {
			continue
		}
		holders := s.borrow[cred]
		if len(holders) == 0 {
			// nobody else held it: the host is its owner's
			holders = []string{owner.agent}
		}
		for _, b := range holders {
			if b != owner.agent {
				c := s.entry(b, capability.Credential, cred, capability.Acquired)
				c.AddUse(use)
			}
			if ev.SrcIP != "" && !s.sandboxIP(ev.SrcIP, ev.Time) {
				p := s.entry(b, capability.Place, ev.SrcIP, capability.Acquired)
				if p.How == "" {
					p.Provenance = capability.ByOutside
					p.How = cred + " of " + owner.agent + " used from it, outside every sandbox"
					p.Acquired, p.CredKind = []string{ev.ID}, s.kinds[cred]
				}
				p.AddUse(capability.Use{Time: endOf(ev), Dur: capability.Millis(durOf(ev)), ID: ev.ID, Source: ev.Source, Refused: use.Refused || ev.Decision == evidence.DecisionDeny, From: cred})
			}
		}
	}
}

// sandboxIP reports whether ip belonged to some session's sandbox at t (or
// lingered after one ended).
func (s *capScan) sandboxIP(ip string, t time.Time) bool {
	bs, _ := s.e.id.Lookup(attribution.ViaIP, ip, t)
	return len(bs) > 0
}
