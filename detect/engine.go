package detect

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/redact"
)

// Source is all the engine needs of an incident's evidence: the events
// matching a typed query (evidence.All: every event), in time order, one
// at a time, so that a rule never holds more than its own events.
// evidence.StoreSource reads a store; MemSource holds events in memory.
type Source interface {
	Each(ctx context.Context, q evidence.Query, fn func(evidence.Event) error) error
}

// A LeanSource is a Source that can leave out what a pass does not read
// of the events it reads them all for: EachLean is Each of every event, in
// time order, without its origin (the file and line it was read from,
// which no detector reads) and with its text (its message and record as
// written) only where keepText, given the event's source and kind, says
// true. It may give more (a source that cannot leave them out gives every
// event whole). A replay asks for it (Pass.each).
type LeanSource interface {
	Source
	EachLean(ctx context.Context, keepText func(source, kind string) bool, fn func(evidence.Event) error) error
}

// Engine runs rules over an incident.
type Engine struct {
	Rules []Rule
	// Attribute attributes proxy and sensor events as they are read, from
	// the session records of the same Source, for evidence whose
	// attribution was not stored at ingest. Rule clauses on agent,
	// attributed_via and tags are then checked in memory after
	// attribution instead of by the Source.
	Attribute bool
	// Secrets, when set, finds the keys of a recognizable form in the
	// agents' tool calls and outputs for their capability sets, named by
	// its placeholders (the case's keyed ones, so that the report names
	// them alike); nil looks for none.
	Secrets *redact.Redactor
}

// correlator turns a rule's events into findings. Events come in time
// order per stream; an ordered sequence has one stream per step. The
// event passed to add is shared with other rules and reused for the next
// one: read it, keep copies, never change it. A finding done gives cites
// each event once (newFinding and a chain's expand see to it): Episodes
// relies on it.
type correlator interface {
	add(stream int, ev *evidence.Event)
	done() []Finding
}

func newCorrelator(r *Rule, e *env) (correlator, error) {
	if chained(r) {
		return newChain(r, e)
	}
	switch r.Correlation.Type {
	case EventCount, ValueCount, ValueSum, ValueAvg, ValuePercentile, ValueMedian:
		return newWindowCount(r), nil
	case OrderedSequence:
		return newSequence(r), nil
	case Temporal:
		return newTemporal(r), nil
	case Rate:
		return newRate(r), nil
	case DenialAdaptation:
		return newAdaptation(r, e), nil
	case CredentialMisuse:
		return newCredMisuse(r, e), nil
	case DestinationExpansion:
		return newExpansion(r, e), nil
	case ToolEscalation:
		return newEscalation(r, e), nil
	case PlanDivergence:
		return newDivergence(r, e), nil
	case IntentMismatch:
		return newIntent(r), nil
	case DataExfiltration:
		return newDataOut(r, e), nil
	}
	return nil, fmt.Errorf("rule %s: correlation type %q", r.ID, r.Correlation.Type)
}

// Result is what one pass of the engine over an incident yields.
type Result struct {
	Findings []Finding
	// Capabilities are every agent's capability set, from the same pass,
	// their use times corrected by the clock skews found.
	Capabilities *capability.Set
	// Coverage is what each source reported, from the same pass: the
	// watermarks and gaps the one rule judges coverage by.
	Coverage *capability.Coverage
	// Skews are the sources' clock offsets from the ledger.
	Skews []Skew
	// Kills are the agents their harness had stopped at the last event
	// (Pass.HarnessKills): a record of the kill, which a case's journal
	// may take as its kill time; never the case's kill time by itself.
	Kills map[string]time.Time
}

// Run evaluates every rule and returns the findings of Scan, grouped per
// agent in the ranking's order (SortRanked).
func (e *Engine) Run(ctx context.Context, src Source) ([]Finding, error) {
	r, err := e.Scan(ctx, src)
	return r.Findings, err
}

// Scan evaluates every rule and builds the agents' capability sets in one
// pass: a replay of every event of src, in time order, into a Pass.
func (e *Engine) Scan(ctx context.Context, src Source) (Result, error) {
	p, err := e.Start(ctx, src)
	if err != nil {
		return Result{}, err
	}
	if err := p.Replay(ctx, src); err != nil {
		return Result{}, err
	}
	return p.Done(), nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// keyOrder is the keys of a map that only grows, in sortedKeys' order,
// kept between asks: the keys added since the last ask are sorted and
// merged in, not every key sorted again. data_exfiltration asks at every
// answer of a follow, over the agents and destinations it found for
// (sorting every key, one per agent and destination, 21,000 at a million
// events, took half its answer).
type keyOrder struct {
	keys  []string
	added []string // since the last ask, unsorted
}

// add names a key new to the map.
func (o *keyOrder) add(k string) { o.added = append(o.added, k) }

// sorted is every key added, sorted: read only, and good until an ask
// after the next add.
func (o *keyOrder) sorted() []string {
	if len(o.added) > 0 {
		o.keys, o.added = mergeSorted(o.keys, o.added, strings.Compare), nil
	}
	return o.keys
}
