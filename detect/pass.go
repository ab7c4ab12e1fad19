package detect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/evidence"
)

// Pass is one run of the engine: events go in one at a time, in time
// order (ties by id, as every Source and the index give them), and every
// rule, the capability scan and the clock-skew scan take from each event
// what they keep. A whole incident is a replay of its stored events into
// a Pass (Scan); a following ingest or a stream feeds one as events come.
type Pass struct {
	e     *Engine
	env   *env
	rules []stream
	// matchers are the streams' queries, each text once: rules compiled
	// from Sigma share a handful (a log source's events), and an event
	// is matched against each once (memo: 0 not yet, 1 no, 2 yes).
	matchers []*evidence.Matcher
	memo     []uint8
	// byKind is, per event kind, the streams a query of which an event of
	// that kind can match and the memo to start from (the queries its kind
	// rules out already answered no): most rules name the kinds they read.
	byKind  map[string]*kindPlan
	kindReq []kindReq // each matcher's required kinds (Matcher.Requires)
	corr    []correlator
	// found is each correlator's findings as last asked, and changed says
	// which took an event (or learnt a session) since: Findings asks only
	// those again.
	found   [][]Finding
	changed []bool
	caps    *capScan
	skew    *skewScan
	gaps    map[string]time.Duration // rule id -> its episodes' gap
	// made are each correlator's episodes as last made, from the second
	// time it is asked: made again only where their matches changed
	made []map[string]*madeEpisode

	known map[string]bool // the session records the pass knows, by id
	// cur is the event being added, its repeated values interned (the
	// agent, the source, the host): what a correlator keeps of them is
	// then one copy per value, not one per event.
	cur    evidence.Event
	last   evidence.Event // the last event added (its time and id)
	events int64
	done   bool
	// filters is the state the rules' filters keep for this pass
	filters FilterState
	// view is what the last View kept, for the next to share
	view *viewParts
	// read is what a replay's reader worked out of the event being
	// added (replay.go)
	read readAhead
	// rulesReadText says a rule's query, filter or grouping may read any
	// event's text, its message or record as written (a bare word's
	// search, a query on the message, a Sigma rule's)
	rulesReadText bool
}

// stream is one of a rule's inputs: the events any of match matches, and
// its filter takes, go to add. A rule with several queries is one stream
// (each event once); an ordered sequence has one per step.
type stream struct {
	match  []*evidence.Matcher
	mi     []int                      // match's indexes in Pass.matchers
	filter func(*evidence.Event) bool // checked in memory after a query matched (nil: none)
	corr   int                        // the rule's correlator (-1: the capability scan)
	add    func(*evidence.Event)
	peers  bool // its correlator judges an agent against the others (AddPeer)
}

// peerJudge is a correlator that judges an agent by the other agents'
// events (destination_expansion: a destination several agents reach is
// the harness's, not new; credential_misuse: a use of one agent's
// credential is another's misuse): a pass running a share of the agents
// gives it the others' events too (AddPeer).
type peerJudge interface{ judgesPeers() }

// ErrLate is returned by Add for an event earlier than one already added:
// a Pass's answers hold for events in time order, so a late event means a
// replay (a new Pass over the stored events).
var ErrLate = errors.New("event earlier than one already added")

// Start begins a Pass over an incident whose session records (and each
// session's activity, for the binding conflicts) src holds: attribution
// knows every session before the first event.
func (e *Engine) Start(ctx context.Context, src Source) (*Pass, error) {
	sessions, err := attribution.ReadSessions(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	env := newEnv(sessions)
	if err := attribution.ProbeActivity(ctx, src, env.id); err != nil {
		return nil, fmt.Errorf("session activity: %w", err)
	}
	p := &Pass{e: e, env: env, corr: make([]correlator, len(e.Rules)), gaps: map[string]time.Duration{}, known: map[string]bool{},
		found: make([][]Finding, len(e.Rules)), changed: make([]bool, len(e.Rules)), made: make([]map[string]*madeEpisode, len(e.Rules))}
	for _, ev := range sessions {
		p.known[ev.ID] = true
	}
	for i := range e.Rules {
		r := &e.Rules[i]
		if r.match == nil {
			if err := r.Validate(); err != nil {
				return nil, fmt.Errorf("rule %s: %w", r.ID, err)
			}
		}
		c, err := newCorrelator(r, env)
		if err != nil {
			return nil, err
		}
		p.corr[i] = c
		p.gaps[r.ID] = r.Gap()
		p.streams(r, c, i)
	}
	capMatch, err := evidence.Compile(capQuery)
	if err != nil {
		return nil, fmt.Errorf("capabilities: %w", err)
	}
	p.caps = newCapScan(env, sessions, e.Secrets)
	p.skew = &skewScan{}
	// one read feeds both: the capability set and the clock skews
	p.rules = append(p.rules, stream{match: []*evidence.Matcher{capMatch}, corr: -1, add: func(ev *evidence.Event) {
		p.caps.add(0, ev)
		p.skew.add(ev)
	}})
	byText := map[string]int{}
	for i := range p.rules {
		st := &p.rules[i]
		for _, m := range st.match {
			text := m.Query().String()
			j, ok := byText[text]
			if !ok {
				j = len(p.matchers)
				byText[text] = j
				p.matchers = append(p.matchers, m)
			}
			st.mi = append(st.mi, j)
		}
	}
	p.memo = make([]uint8, len(p.matchers))
	p.byKind = map[string]*kindPlan{}
	p.kindReq = make([]kindReq, len(p.matchers))
	for j, m := range p.matchers {
		p.kindReq[j].vs, p.kindReq[j].ok = m.Requires("kind")
		p.rulesReadText = p.rulesReadText || m.Query().ReadsText()
	}
	for _, st := range p.rules {
		p.rulesReadText = p.rulesReadText || st.filter != nil
	}
	return p, nil
}

const maxKindPlans = 256

// kindReq is the values of kind a query requires (ok false: any).
type kindReq struct {
	vs []string
	ok bool
}

// kindPlan is what an event of one kind is matched against.
type kindPlan struct {
	streams []int32
	memo    []uint8
}

// plan is the kind plan of kind, made the first time an event of it comes.
func (p *Pass) plan(kind string) *kindPlan {
	if k := p.byKind[kind]; k != nil {
		return k
	}
	k := &kindPlan{memo: p.kindMemo(kind)}
	for i := range p.rules {
		for _, j := range p.rules[i].mi {
			if k.memo[j] == 0 {
				k.streams = append(k.streams, int32(i))
				break
			}
		}
	}
	if len(p.byKind) < maxKindPlans { // kinds are a closed set; a stray one is planned each time
		p.byKind[strings.Clone(kind)] = k
	}
	return k
}

// kindMemo is the memo an event of kind starts from: the queries its kind
// rules out answered no (1). It reads only what Start made, so a replay's
// reader asks it too.
func (p *Pass) kindMemo(kind string) []uint8 {
	memo := make([]uint8, len(p.matchers))
	for j, r := range p.kindReq {
		if r.ok && !slices.Contains(r.vs, kind) {
			memo[j] = 1
		}
	}
	return memo
}

// matches reports whether the event matches the i-th distinct query,
// asking the query once per event.
func (p *Pass) matches(i int, ev *evidence.Event) bool {
	if p.memo[i] == 0 {
		p.memo[i] = 1
		if p.matchers[i].Match(ev) {
			p.memo[i] = 2
		}
	}
	return p.memo[i] == 2
}

// streams adds rule r's inputs, feeding its correlator c (rule i's, or
// a correlator inside it for a chain's inner rule).
func (p *Pass) streams(r *Rule, c correlator, i int) {
	_, peers := c.(peerJudge)
	p.rulesReadText = p.rulesReadText || r.Correlation.Keys != nil
	if !stepped(r.Correlation.Type) {
		if len(r.match) > 0 {
			p.rules = append(p.rules, stream{match: r.match, filter: p.filter(r.Filter), corr: i, add: func(ev *evidence.Event) { c.add(0, ev) }, peers: peers})
		}
		// a count over other correlations (a chain): their streams
		for s, st := range r.Correlation.Steps {
			p.streams(st.Rule, c.(*chain).inner[s], i)
		}
		return
	}
	for s, st := range r.Correlation.Steps {
		if st.Rule != nil {
			p.streams(st.Rule, c.(*chain).inner[s], i)
			continue
		}
		p.rules = append(p.rules, stream{match: []*evidence.Matcher{r.steps[s]}, filter: p.filter(st.Filter), corr: i, add: func(ev *evidence.Event) { c.add(s, ev) }, peers: peers})
	}
}

// filter is how this pass checks f (nil: no filter): a PassFilter's
// matcher for this pass, or f's Match.
func (p *Pass) filter(f Filter) func(*evidence.Event) bool {
	switch f := f.(type) {
	case nil:
		return nil
	case PassFilter:
		if p.filters.Shared == nil {
			p.filters.Shared = map[any]any{}
		}
		return f.ForPass(&p.filters)
	default:
		return f.Match
	}
}

// Add takes one event. The event is read, not kept: the caller may reuse
// it. Attribution is applied to a copy when the engine attributes (see
// Engine.Attribute); the one event Add changes is a replay's own, which
// ReplayVia hands to its add.
func (p *Pass) Add(ev *evidence.Event) error { return p.add(ev, false) }

// AddPeer takes an event of an agent whose findings another pass makes
// (a watcher of a share of the agents): only the correlators that judge
// an agent against the others take it, and the findings they make of that
// agent are the other pass's to publish. In time order with Add.
func (p *Pass) AddPeer(ev *evidence.Event) error { return p.add(ev, true) }

func (p *Pass) add(ev *evidence.Event, peer bool) error {
	if p.done {
		return errors.New("pass already finished")
	}
	if p.events > 0 && before(ev, &p.last) {
		return fmt.Errorf("%w: %s at %s after %s at %s", ErrLate, ev.ID, ev.Time.Format(time.RFC3339Nano), p.last.ID, p.last.Time.Format(time.RFC3339Nano))
	}
	p.last.ID, p.last.Time = ev.ID, ev.Time
	p.events++
	if p.events%sweepEvery == 0 {
		p.sweep(ev.Time)
	}
	p.filters.Event = p.events
	ahead := p.takeRead(ev)
	p.env.parsed = ahead.call
	if !peer && attribution.SessionRecord(ev) && !p.known[ev.ID] {
		p.learn(ev)
	}
	// before the rules read it: a record may tie the address it names
	// to a host for the very correlation that reads it
	p.env.addrs.observe(ev)
	if ahead.ev == nil {
		// the caller's event: what is changed below is changed on a copy
		p.cur = *ev
		if p.e.Attribute && ev.AttributedVia == "" && attribution.Attributable(ev) {
			attribution.Apply(&p.cur, p.env.id.Attribute(&p.cur))
		}
		ev = &p.cur
	} // else the replay's own copy, which needs no attribution (takeRead)
	intern := p.env.intern
	ev.Agent, ev.Source, ev.DstHost = intern(ev.Agent), intern(ev.Source), intern(ev.DstHost)
	plan := p.plan(ev.Kind)
	if ahead.memo != nil {
		copy(p.memo, ahead.memo)
	} else {
		copy(p.memo, plan.memo)
	}
	for _, i := range plan.streams {
		st := &p.rules[i]
		if peer && !st.peers {
			continue
		}
		for _, m := range st.mi {
			if p.matches(m, ev) {
				if st.filter == nil || st.filter(ev) {
					st.add(ev)
					if st.corr >= 0 {
						p.changed[st.corr] = true
					}
				}
				break
			}
		}
	}
	return nil
}

// learn takes a session record the pass did not read before its first
// event (a following ingest's, a stream's), in time order: from it on,
// attribution, the sessions' grants and the capability sets know it, as
// a pass that read it first would. What was added before it is not
// judged again: the one difference from a replay (see docs/engine.md).
func (p *Pass) learn(ev *evidence.Event) {
	p.known[ev.ID] = true
	for i := range p.changed {
		p.changed[i] = true // sessions are what several judge their events by
	}
	p.env.id.Observe(ev)
	p.env.learn(ev)
	p.caps.grant(ev)
}

// Events counts the events added.
func (p *Pass) Events() int64 { return p.events }

// Last is the last event added (its time and id; zero before any): an
// event is late when it sorts before it (Before).
func (p *Pass) Last() evidence.Event { return evidence.Event{ID: p.last.ID, Time: p.last.Time} }

// Before orders events as the engine takes them: by time, then by id.
func Before(a, b *evidence.Event) bool { return before(a, b) }

// Findings are the rules' findings over the events added so far, as one
// episode per run (Episodes) with unique ids. It changes nothing: more
// events may follow, and a finding still open (its episode may grow) is
// given as it stands.
func (p *Pass) Findings() []Finding {
	var stale []int
	for i := range p.corr {
		if p.corr[i] != nil && (p.found[i] == nil || p.changed[i]) {
			stale = append(stale, i)
		}
	}
	// each correlator's findings are its own (rule ids are unique), so
	// those that changed are made again side by side
	sideBySide(len(stale), func(k int) { p.refind(stale[k]) })
	var out []Finding
	for i := range p.corr {
		out = append(out, p.found[i]...)
	}
	// in the order Episodes gives a whole set: by detector, then agent
	// and start within it
	return byDetector(out)
}

// refind makes correlator i's findings again: its episodes, their ids.
func (p *Pass) refind(i int) {
	// a pass asked once (a replay) keeps none
	fs, made := episodesFrom(p.corr[i].done(), func(detector string) time.Duration { return p.gaps[detector] }, p.made[i], p.found[i] != nil)
	p.made[i] = made
	uniqueIDs(fs)
	for j := range fs {
		fs[j].group = "" // a chain's, not the answer's
		// shared with every answer given: an append reallocates
		fs[j].Events, fs[j].Values = slices.Clip(fs[j].Events), slices.Clip(fs[j].Values)
	}
	p.found[i], p.changed[i] = slices.Clip(fs), false
	if p.done {
		// nothing is added after Done: the correlator's state is garbage
		// once its findings are made, freed while the others make theirs
		p.corr[i], p.made[i] = nil, nil
	}
}

// byDetector orders fs by detector, keeping the order within each, moving
// each finding once.
func byDetector(fs []Finding) []Finding {
	type key struct {
		detector string
		i        int
	}
	keys := make([]key, len(fs))
	for i := range fs {
		keys[i] = key{fs[i].Detector, i}
	}
	slices.SortStableFunc(keys, func(a, b key) int { return strings.Compare(a.detector, b.detector) })
	out := make([]Finding, len(fs))
	for i, k := range keys {
		out[i] = fs[k.i]
	}
	return out
}

// Result is the pass's answer over the events added so far, as Done
// gives it, leaving the pass as it was: more events may follow. It costs
// a copy of the capability sets.
func (p *Pass) Result() Result {
	return p.result((*capScan).clone)
}

// Done finishes the pass: the findings, every agent's capability set with
// its uses on the ledger's clock, the sources' coverage, the clock skews;
// the findings grouped per agent in the ranking's order. Nothing can be
// added after.
func (p *Pass) Done() Result {
	p.done = true
	// what adds an event to a correlator goes (it holds the correlator),
	// so each correlator's state goes once its findings are made (refind):
	// at ten million events the answer was made beside the whole state
	p.rules = nil
	return p.result(func(s *capScan) *capScan { return s })
}

// result is the answer, the capability sets finished on what caps makes
// of the pass's scan (a copy, or the scan itself at the end) while the
// rules' findings are made: neither reads what the other writes.
func (p *Pass) result(caps func(*capScan) *capScan) Result {
	skews := p.skew.done()
	var cs *capScan
	var capSets *capability.Set
	var out []Finding
	sideBySide(2, func(k int) {
		if k == 0 {
			cs = caps(p.caps)
			capSets = cs.done(skews)
		} else {
			out = p.Findings()
		}
	})
	// grouped per agent in the one ranking's order (containment aside:
	// that is the checks', above the detectors)
	SortRanked(out, RankAgents(RankInput{Findings: out, Capabilities: capSets}))
	return Result{Findings: out, Capabilities: capSets, Coverage: cs.cov, Skews: skews, Kills: p.HarnessKills()}
}

// Attribution is whose the pass would take ev to be if it were added now:
// the agent a ledger record names (or an event already attributed), or
// what attribution decides from the session records the pass knows. It
// changes nothing. A watcher that runs a share of the agents (a
// partition) chooses its events by it.
func (p *Pass) Attribution(ev *evidence.Event) attribution.Attribution {
	if ev.Source == evidence.SourceLedger || ev.AttributedVia != "" || !attribution.Attributable(ev) {
		return attribution.Attribution{Agent: ev.Agent}
	}
	return p.env.id.Attribute(ev)
}

// Compare orders events as the engine takes them and the index gives
// them: by time, then by id.
func Compare(a, b *evidence.Event) int {
	if c := a.Time.Compare(b.Time); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func before(a, b *evidence.Event) bool { return Compare(a, b) < 0 }
