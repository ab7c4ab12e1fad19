package assist

import (
	"context"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/redact"
)

// Selection says which evidence a packet holds: the union of the events
// matching Query (within Since/Until), the events listed in IDs, and the
// events of Findings. An empty selection, or one marked Whole, is the
// whole incident.
type Selection struct {
	// Whole: every event of the incident, whatever else is set. The
	// findings given with it still go first when the budget is short; it
	// is what "the whole incident with its findings" means, which a bare
	// list of findings would not (their events alone would be read).
	Whole bool
	Query evidence.Query
	// All reads every event beside IDs and Findings, as the query * does:
	// the zero Query alone cannot say so, being every event only when
	// nothing else is selected.
	All      bool
	IDs      []string
	Since    time.Time // inclusive; zero = unbounded (applies to Query)
	Until    time.Time // exclusive; zero = unbounded
	Findings []detect.Finding
	// Capabilities are the capability sets of the agents concerned: the
	// packet carries a summary line of each, so that the model sees what
	// the agent acquired and what is still live.
	Capabilities []capability.Capability
	// Assessment is the case's verdict on them (nil: none yet), rendered
	// beside each.
	Assessment *capability.Assessment
	// Redactor redacts the packet: nil for a fresh one, whose placeholders
	// ([SECRET-n]) are the packet's own; an output of the case (the
	// report's timeline) passes its own, so that one secret has one
	// placeholder from the top of the output to its end.
	Redactor *redact.Redactor
}

// Budget bounds a packet.
type Budget struct {
	// Tokens is the evidence's size in tokens, as Count counts them;
	// 0 means DefaultTokens.
	Tokens int
	// Count counts one line's tokens: the model's tokenizer for a packet
	// that goes to a model (Config.PacketBudget). nil approximates with
	// bytes/4, which only the offline outputs use, as they reach no model.
	// Each line costs one token more, for its line break.
	Count func(string) int
	// LineBytes caps one event line; 0 means DefaultLineBytes.
	LineBytes int
	// ReadLimit caps the events read from the store before sampling; 0
	// means DefaultReadLimit. Past it, reads are spread over the time span.
	ReadLimit int
}

// Budget defaults.
const (
	DefaultTokens    = 6000
	DefaultLineBytes = 320
	DefaultReadLimit = 10000
)

func (b Budget) withDefaults() Budget {
	if b.Tokens <= 0 {
		b.Tokens = DefaultTokens
	}
	if b.LineBytes <= 0 {
		b.LineBytes = DefaultLineBytes
	}
	if b.LineBytes < 80 {
		b.LineBytes = 80
	}
	if b.ReadLimit <= 0 {
		b.ReadLimit = DefaultReadLimit
	}
	if b.Count == nil {
		b.Count = approxTokens
	}
	return b
}

// approxTokens is the old bytes/4 approximation, kept for the offline
// outputs' budgets.
func approxTokens(s string) int { return len(s) / 4 }

// PacketEvent is one event as the packet carries it: redacted, printable,
// capped.
type PacketEvent struct {
	ID       string    `json:"id"`
	Time     time.Time `json:"time"`
	Agent    string    `json:"agent,omitempty"`
	Kind     string    `json:"kind"`
	Decision string    `json:"decision,omitempty"`
	Status   string    `json:"status,omitempty"`
	Target   string    `json:"target,omitempty"`
	URL      string    `json:"url,omitempty"`
	Message  string    `json:"message,omitempty"`
	// InFinding: the event is evidence of one of the packet's findings.
	InFinding bool `json:"in_finding,omitempty"`
	// Flagged: the line reads like instructions to an AI.
	Flagged bool `json:"flagged,omitempty"`
	// Line is exactly what the model reads for this event.
	Line string `json:"line"`

	excerpt string // the instruction-like text, when Flagged
}

// Packet is the evidence the assistant may send: every event line
// redacted and budgeted, with an account of what was left out.
type Packet struct {
	// Events are the events sent, in time order.
	Events []PacketEvent `json:"events"`
	// Findings are the findings of the selection; FindingLines render them.
	Findings     []detect.Finding `json:"findings,omitempty"`
	FindingLines []string         `json:"finding_lines,omitempty"`
	// CapabilityLines summarize the selection's capabilities, redacted.
	CapabilityLines []string `json:"capability_lines,omitempty"`
	// Total is how many events the selection holds; Sent how many of them
	// the packet carries. Sampled says a budget or read limit left some out.
	Total   int  `json:"total"`
	Sent    int  `json:"sent"`
	Sampled bool `json:"sampled"`
	// Whole: the selection was the whole incident, so Total counts every
	// event of it.
	Whole bool `json:"whole,omitempty"`
	// BudgetTokens is the budget the packet was built within, and
	// ReadLimit the most events read of a query; SentLine cites them when
	// events were left out.
	BudgetTokens int `json:"budget_tokens,omitempty"`
	ReadLimit    int `json:"read_limit,omitempty"`
	// ReadCapped: more events matched than ReadLimit, and a spread of
	// them over the time span was read.
	ReadCapped bool `json:"read_capped,omitempty"`
	// FindingEvents is how many of the events sent are findings' evidence.
	FindingEvents int `json:"finding_events,omitempty"`
	// Missing lists requested ids the store does not hold.
	Missing []string `json:"missing,omitempty"`
	// Redactions is how many secrets were replaced by placeholders.
	Redactions int `json:"redactions"`
	// Injections are the lines that read like instructions to an AI.
	Injections []Flag `json:"injections,omitempty"`
	// Tokens is the size of the evidence text, as the budget counts it.
	Tokens int `json:"tokens"`
	// PromptTokens is the whole request's size (system prompt, framing,
	// evidence, question) counted with Tokenizer, ContextTokens the
	// model's context and ReplyTokens the reply's limit: set by
	// Config.Fit, zero for a packet no model reads.
	PromptTokens  int    `json:"prompt_tokens,omitempty"`
	ContextTokens int    `json:"context_tokens,omitempty"`
	ReplyTokens   int    `json:"reply_tokens,omitempty"`
	Tokenizer     string `json:"tokenizer,omitempty"`
	// LinesLeftOut counts the finding and capability lines the budget had
	// no room for.
	LinesLeftOut int `json:"lines_left_out,omitempty"`
	// Shrunk says why events were dropped after the packet was built, to
	// fit the model's context: "" when none were.
	Shrunk string `json:"shrunk,omitempty"`

	redactor  *redact.Redactor
	ids       map[string]bool
	shrunkWhy string // the reason Shrunk gives, for a later Shrink
}

// Has reports whether the packet carries event id. A packet decoded from
// JSON has no index and is searched instead.
func (p Packet) Has(id string) bool {
	if p.ids != nil {
		return p.ids[id]
	}
	for _, e := range p.Events {
		if e.ID == id {
			return true
		}
	}
	return false
}

// EventIDs lists the ids of the events sent, in time order.
func (p Packet) EventIDs() []string {
	out := make([]string, len(p.Events))
	for i, e := range p.Events {
		out[i] = e.ID
	}
	return out
}

// SentLine is the packet's account of itself, never left out: the model
// and the responder both learn what they see (the whole incident or a
// selection), and when it is a subset, what was left out and why.
func (p Packet) SentLine() string {
	s := fmt.Sprintf("sent %d of %d events", p.Sent, p.Total)
	if p.Whole {
		s += " of the whole incident"
	}
	if left := p.LeftOut(); left != "" {
		s += " (" + left + ")"
	}
	return s
}

// LeftOut says why events of the selection were not sent, or "" when all
// of them were.
func (p Packet) LeftOut() string {
	if !p.Sampled {
		return ""
	}
	var why []string
	if p.ReadCapped {
		why = append(why, fmt.Sprintf("more than the read limit of %d matched, so a spread over time was read", p.ReadLimit))
	}
	why = append(why, fmt.Sprintf("over budget of %d tokens: the findings' events first (%d sent), then %d of the other %d sampled evenly by time",
		p.BudgetTokens, p.FindingEvents, p.Sent-p.FindingEvents, p.Total-p.FindingEvents))
	if p.LinesLeftOut > 0 {
		why = append(why, fmt.Sprintf("%d finding and capability lines left out for room", p.LinesLeftOut))
	}
	if p.Shrunk != "" {
		why = append(why, p.Shrunk)
	}
	return strings.Join(why, "; ")
}

// BuildPacket reads the selected events from st in time order and builds
// the packet: one redacted line per event, capped, within the budget.
// Over budget it keeps the events of findings first, then samples the
// rest evenly by time, and says so.
func BuildPacket(ctx context.Context, st evidence.Reader, sel Selection, budget Budget) (Packet, error) {
	budget = budget.withDefaults()
	sel.Whole = sel.Whole || sel.Query.IsAll() && len(sel.IDs) == 0 && len(sel.Findings) == 0 && sel.Since.IsZero() && sel.Until.IsZero()
	evs, total, missing, err := readSelection(ctx, st, sel, budget.ReadLimit)
	if err != nil {
		return Packet{}, err
	}
	inFinding := map[string]bool{}
	for _, f := range sel.Findings {
		for _, id := range f.Events {
			inFinding[id] = true
		}
	}
	// Measure with a scratch redactor: lines are redacted before they are
	// capped, so that a cap never cuts a secret in half and leaks the rest.
	red := sel.Redactor
	if red == nil {
		red = &redact.Redactor{}
	}
	scratch, before := red.Clone(), red.Count()
	costs := make([]int, len(evs))
	for i, ev := range evs {
		costs[i] = budget.Count(renderEvent(ev, scratch, budget.LineBytes, inFinding[ev.ID]).Line) + 1
	}
	p := Packet{Findings: sel.Findings, Total: total, Missing: missing, Whole: sel.Whole, BudgetTokens: budget.Tokens, ReadLimit: budget.ReadLimit,
		ReadCapped: total > len(evs), redactor: red, ids: map[string]bool{}}
	for _, f := range sel.Findings {
		p.FindingLines = append(p.FindingLines, renderFinding(f, p.redactor, budget.LineBytes*2))
	}
	for _, c := range sel.Capabilities {
		if summarized(c) {
			p.CapabilityLines = append(p.CapabilityLines, renderCapability(c, sel.Assessment, p.redactor, budget.LineBytes))
		}
	}
	// The findings and capabilities take at most half the budget: with a
	// small context, their lines alone would leave no room for events.
	var used int
	p.FindingLines, used, p.LinesLeftOut = trimLines(p.FindingLines, budget.Tokens/2, budget.Count)
	var capUsed, capLeft int
	p.CapabilityLines, capUsed, capLeft = trimLines(p.CapabilityLines, budget.Tokens/2-used, budget.Count)
	p.LinesLeftOut += capLeft
	p.Sampled = p.LinesLeftOut > 0
	left := budget.Tokens - used - capUsed
	keep := choose(evs, costs, inFinding, left)
	p.Sampled = p.Sampled || len(keep) < total
	tokens := budget.Tokens - left
	for _, i := range keep {
		pe := renderEvent(evs[i], p.redactor, budget.LineBytes, inFinding[evs[i].ID])
		if pe.Flagged {
			p.Injections = append(p.Injections, Flag{EventID: pe.ID, Excerpt: pe.excerpt})
		}
		tokens += budget.Count(pe.Line) + 1
		if pe.InFinding {
			p.FindingEvents++
		}
		p.Events = append(p.Events, pe)
		p.ids[pe.ID] = true
	}
	p.Sent = len(p.Events)
	p.Redactions = p.redactor.Count() - before
	p.Tokens = tokens
	return p, nil
}

// trimLines keeps lines, in order, while they fit in room tokens: it
// returns those kept, the tokens they take and how many were left out.
func trimLines(lines []string, room int, count func(string) int) ([]string, int, int) {
	var kept []string
	used, dropped := 0, 0
	for _, l := range lines {
		c := count(l) + 1
		if used+c > room {
			dropped++
			continue
		}
		used += c
		kept = append(kept, l)
	}
	return kept, used, dropped
}
