package detect

import (
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Severities, lowest first.
const (
	SeverityInfo     = "info"
	SeverityLow      = "low"
	SeverityMedium   = "medium"
	SeverityHigh     = "high"
	SeverityCritical = "critical"
)

// SeverityRank orders severities (info 0 ... critical 4); -1 for an
// unknown one.
func SeverityRank(s string) int {
	switch s {
	case SeverityInfo:
		return 0
	case SeverityLow:
		return 1
	case SeverityMedium:
		return 2
	case SeverityHigh:
		return 3
	case SeverityCritical:
		return 4
	}
	return -1
}

// Phases are the playbook's, in order; a finding names the one it feeds.
func Phases() []string {
	return []string{"detect", "triage", "attribute", "contain", "eradicate", "recover", "review"}
}

// Correlation types a rule can use. The first four are generic; the others
// are built-in correlations written in Go because they compare an event
// with the agent's session grants or with other events field by field,
// which a query and a count cannot say (docs/rules.md says why for each).
const (
	EventCount      = "event_count"
	ValueCount      = "value_count"
	OrderedSequence = "ordered_sequence"
	// Temporal is every step's events within one window, in any order.
	Temporal = "temporal"
	// The metric correlations: the sum, mean, percentile or median of a
	// numeric field over the events in the window (detect/metric.go).
	ValueSum             = "value_sum"
	ValueAvg             = "value_avg"
	ValuePercentile      = "value_percentile"
	ValueMedian          = "value_median"
	Rate                 = "rate"
	DenialAdaptation     = "denial_adaptation"
	CredentialMisuse     = "credential_misuse"
	DestinationExpansion = "destination_expansion"
	ToolEscalation       = "tool_escalation"
	PlanDivergence       = "plan_divergence"
	IntentMismatch       = "intent_mismatch"
	DataExfiltration     = "data_exfiltration"
)

// Rule is one detector: which events (Query), and what about them is
// suspicious (Correlation). Rules are data: see docs/rules.md.
type Rule struct {
	ID          string
	Title       string
	Severity    string
	Phase       string
	Description string
	// Tags name what the rule detects in a shared vocabulary: MITRE
	// ATT&CK tactics and techniques as Sigma writes them
	// (attack.persistence, attack.t1053.003). Its findings carry them.
	Tags []string `json:",omitempty"`
	// Explain is the one-line explanation, with {{variables}} naming the
	// numbers that triggered it.
	Explain string
	// Query lists queries (docs/query.md); an event is the rule's when it
	// matches any of them. One is the common case; several let each
	// alternative carry its own comment.
	Query       []string
	Correlation Correlation
	// Origin is file:line where the rule was defined.
	Origin string
	// Filter, when set, is checked in memory on every event the queries
	// find; only those it matches are the rule's. A rule compiled from
	// another language (sigma/) carries its whole meaning here and a
	// coarser Query that the store can answer.
	Filter Filter `json:",omitempty"`

	match []*evidence.Matcher
	steps []*evidence.Matcher
}

// Correlation is how a rule's events add up to a finding.
type Correlation struct {
	Type string
	// GroupBy is the field events are grouped by (default agent); events
	// with no value in it are not correlated.
	GroupBy string
	// Window bounds how far apart correlated events may be.
	Window    time.Duration
	Condition Condition
	// Field is the field whose distinct values value_count counts, or
	// whose numbers a metric correlation adds up.
	Field string
	// Percentile is value_percentile's: which one, above 0 and at most 100.
	Percentile float64
	// Steps are the queries of an ordered_sequence, in order.
	Steps []Step
	// MinEvents is the fewest events in a window a rate rule judges.
	MinEvents int
	// Gap is how far apart two matches may be and still be one episode,
	// one finding (default: Window).
	Gap time.Duration
	// Keys, when set, gives each event's group in place of GroupBy's
	// value: several fields at once, or a field that differs from one
	// step to another (Sigma's group-by lists and aliases). GroupBy
	// still names the grouping in explanations.
	Keys Grouper `json:",omitempty"`
	// Ordered makes a temporal correlation count only the steps seen in
	// their order: the condition holds on the longest run of distinct
	// steps, each later (or no earlier) than the one before it.
	Ordered bool `json:",omitempty"`
}

// Grouper gives an event's group (empty: the event is not correlated).
// step is the stream the event came in by (an ordered sequence's or a
// temporal correlation's step; 0 for a rule with one stream). It
// marshals to its canonical text, as Filter does.
type Grouper interface {
	Key(step int, ev *evidence.Event) string
	MarshalText() ([]byte, error)
}

// Step is one step of an ordered sequence.
type Step struct {
	Name  string
	Query string
	// Filter is checked in memory on the events Query finds, as
	// Rule.Filter is.
	Filter Filter `json:",omitempty"`
	// Rule, in place of Query, makes the step's events the matches of
	// another correlation (a chain, as Sigma's correlation rules may
	// name one another): each of its findings is one event of the step,
	// at its end, grouped as the finding was. The two must group alike,
	// unless the rule's Keys is a Regrouper. event_count, value_count
	// and the metric correlations take such steps too: their events are
	// then their Query's and every step's findings together.
	Rule *Rule `json:",omitempty"`
}

// Regrouper is the Keys of an event_count, value_count or metric
// correlation whose steps are other correlations grouped by more fields
// than it is: of the finding of group g of step's rule, it gives the
// group in this correlation and the value it holds of the field counted
// ("" for none); ok false leaves the finding out.
type Regrouper interface {
	Regroup(step int, g string) (group, value string, ok bool)
}

// Filter decides in memory whether an event is a rule's (or a step's).
// It marshals to its canonical text, so that the hash of the rules in
// force changes with it.
type Filter interface {
	Match(ev *evidence.Event) bool
	MarshalText() ([]byte, error)
}

// A PassFilter is a Filter whose matching in a pass can share work with
// the pass's other filters: what one reads of the event being added, the
// others of its family need not read again (sigma/index.go: a rule set's
// index, looked up once an event). A pass asks each for its matcher once,
// at its start, and calls it on one event at a time, in order; its
// answers are Match's.
type PassFilter interface {
	Filter
	ForPass(s *FilterState) func(ev *evidence.Event) bool
}

// FilterState is one pass's, for its filters: Event numbers the event
// being added (what a filter keeps of an event holds while it is
// unchanged); Shared is what the filters share, each family under a key
// of its own.
type FilterState struct {
	Event  int64
	Shared map[any]any
}

// Condition bounds the number a correlation computes: a lower bound (Gt or
// Gte) and optionally an upper one (Lt or Lte).
type Condition struct {
	Gt, Gte, Lt, Lte *float64
	// Neq holds when the number differs from it. A running count passes
	// through every number on its way up, so event_count, value_count and
	// the metric correlations judge a condition with Neq on the window's
	// final number (detect/count.go), the only types that take it.
	Neq *float64 `json:",omitempty"`
}

// Holds reports whether v satisfies every bound.
func (c Condition) Holds(v float64) bool {
	return (c.Gt == nil || v > *c.Gt) && (c.Gte == nil || v >= *c.Gte) &&
		(c.Lt == nil || v < *c.Lt) && (c.Lte == nil || v <= *c.Lte) && (c.Neq == nil || v != *c.Neq)
}

// String renders the condition: ">= 5".
func (c Condition) String() string {
	var parts []string
	for _, b := range []struct {
		op string
		v  *float64
	}{{">", c.Gt}, {">=", c.Gte}, {"<", c.Lt}, {"<=", c.Lte}, {"!=", c.Neq}} {
		if b.v != nil {
			parts = append(parts, b.op+" "+strconv.FormatFloat(*b.v, 'f', -1, 64))
		}
	}
	return strings.Join(parts, ", ")
}

// Num is a helper for conditions written in Go: Condition{Gte: Num(5)}.
func Num(v float64) *float64 { return &v }
