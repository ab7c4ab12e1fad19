package report

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/redact"
)

// Report is the incident report: the four questions answered from the
// evidence, attribution, findings, the kill switch, what the responders did
// and what is still open. It is plain data: the JSON format is this struct
// as it is, and the Markdown and HTML formats render from it. Text in it
// quotes evidence as recorded; renderers make it safe for their medium.
type Report struct {
	// Name is the incident's name: cordon.yaml's `name`, else its subject
	// and the day it began. Incident is the workspace folder's name, kept
	// for tools; the report never titles itself with it.
	Name     string `json:"name"`
	Incident string `json:"incident"`
	// Generated is the time the report is as of: the later of the journal
	// head's entry and the last event, unless At fixes it. It is not the
	// clock's time, so that the same workspace and journal give the same
	// report.
	Generated time.Time `json:"generated"`
	// Built says what built it and from what.
	Built Provenance `json:"built"`
	// Front is the first page: status, the summary in sentences, the
	// team's decisions.
	Front   Front   `json:"front"`
	Summary Summary `json:"summary"`
	// Impact leads: what left, what is exposed, who else is affected, and
	// whether each capability is stopped.
	Impact Impact `json:"impact"`
	// Agents answer the four questions for each subject agent.
	Agents      []Agent     `json:"agents"`
	Attribution Attribution `json:"attribution"`
	// Ranking is every agent in the order a responder should look at
	// them, with the reason (detect.RankAgents, as cordon findings --by
	// agent and the Findings pane have it).
	Ranking  []detect.AgentRank `json:"ranking"`
	Findings []Finding          `json:"findings"`
	// Suppressions are the suppressions on the record, each with the
	// findings it covers; the findings are listed above all the same.
	Suppressions []Suppression `json:"suppressions"`
	Layers       []LayerStatus `json:"layers"`
	// Lanes are the timeline picture's data: one lane per agent involved.
	Lanes Lanes `json:"lanes"`
	// Graph is the attribution and capability graph.
	Graph Graph `json:"graph"`
	// Interventions are the humans' interventions the evidence records
	// (the ledger's human_intervention records): people acting on the
	// agents' runs, before or apart from the case.
	Interventions []Intervention `json:"human_interventions"`
	// Actions are the responders' journal entries: the subject named,
	// steps, checklist items, notes, actions run, marks, overrides.
	Actions []Entry `json:"responder_actions"`
	// Exchanges are the assistant's journaled exchanges and refusals.
	Exchanges []Entry `json:"assistant_exchanges"`
	// ChecksJournaled counts the check_result entries left out of Actions.
	ChecksJournaled int        `json:"checks_journaled"`
	Open            []OpenItem `json:"open_items"`
	// Evidence is every input the journal records as received, with the
	// digest `cordon evidence verify` checks it against.
	Evidence []Received   `json:"evidence_received"`
	Journal  JournalCheck `json:"journal"`
	// Redaction says how the secrets the evidence holds are shown.
	Redaction Redaction `json:"redaction"`
}

// Summary is the report's first screen.
type Summary struct {
	// First and Last bound the main span (evidence.Span): the few events
	// far outside it are named by Outside and found by OutsideQuery.
	First        time.Time `json:"first"`
	Last         time.Time `json:"last"`
	Outside      string    `json:"outside,omitempty"`
	OutsideQuery string    `json:"outside_query,omitempty"`

	Events   int64            `json:"events"`
	BySource []evidence.Count `json:"by_source"`
	Subject  []string         `json:"subject"`
	// SubjectFrom: "journal" (named by SubjectBy), "findings" (the first
	// agent of the ranking by concern) or "" (none).
	SubjectFrom string           `json:"subject_from"`
	SubjectBy   string           `json:"subject_by,omitempty"`
	Findings    int              `json:"findings"`
	BySeverity  []evidence.Count `json:"by_severity"`
	// KilledAt is the kill time the journal records; ContainedAt when the
	// Assessment has every capability stopped (zero: not contained).
	KilledAt    time.Time `json:"killed_at,omitzero"`
	ContainedAt time.Time `json:"contained_at,omitzero"`
	// Containment is the kill switch in one line: "5 of 7 kill-switch
	// layers verified; 2 not verified".
	Containment string `json:"containment"`
	// JournalLine is the journal verification in one line.
	JournalLine string `json:"journal"`
	// RedactionLine says how secrets the evidence holds are shown.
	RedactionLine string `json:"redaction"`
	// ImpactLine is the impact in one line.
	ImpactLine string `json:"impact"`
}

// Finding is a finding with its evidence ids capped.
type Finding struct {
	ID          string    `json:"id"`
	Detector    string    `json:"detector"`
	Title       string    `json:"title"`
	Agent       string    `json:"agent"`
	Severity    string    `json:"severity"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Explanation string    `json:"explanation"`
	Phase       string    `json:"phase"`
	// Matches counts the rule's matches the episode gathers.
	Matches int `json:"matches"`
	// Tags are its rule's ATT&CK tactics and techniques.
	Tags []string `json:"tags,omitempty"`
	// SuppressedBy are the suppressions that cover it, if any.
	SuppressedBy []string `json:"suppressed_by,omitempty"`
	// Events are the first maxReportIDs evidence ids; EventCount all.
	Events     []string `json:"events"`
	EventCount int      `json:"event_count"`
	// All are the ids the appendix lists: the first maxAppendixIDs.
	All []string `json:"all_events"`
}

// JournalCheck is the outcome of verifying the journal's hash chain.
type JournalCheck struct {
	OK      bool   `json:"ok"`
	Entries int    `json:"entries"`
	Seq     int64  `json:"seq"`
	Head    string `json:"head"`
	Problem string `json:"problem,omitempty"`
}

// maxReportIDs bounds the evidence ids a report line lists;
// maxAppendixIDs the ids of one finding the appendix lists.
const (
	maxReportIDs   = 10
	maxAppendixIDs = 500
)

// Option tunes Build.
type Option func(*options)

type options struct {
	now        time.Time
	unredacted bool
	built      Provenance
}

// Unredacted leaves the secrets in the evidence as they are: the report,
// the bundle and every export are redacted by default (docs/exports.md).
func Unredacted() Option {
	return func(c *options) { c.unredacted = true }
}

func optionsOf(opts []Option) options {
	var cfg options
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// Redaction says what an output's redaction did.
type Redaction struct {
	// Off: the output was asked for unredacted (it shows the secrets).
	Off bool `json:"off,omitempty"`
	// Secrets is how many distinct secrets were replaced by placeholders;
	// Stable says the placeholders are the case's own, the same in each of
	// its outputs (false on read-only media: this output's only).
	Secrets int  `json:"secrets"`
	Stable  bool `json:"stable"`
}

// Line says it in one line.
func (r Redaction) Line() string {
	switch {
	case r.Off:
		return "off: secrets in the evidence are shown as they are"
	case r.Secrets == 0:
		return "none of the redaction rules (cordon's and gitleaks') found a secret in what this output quotes"
	case r.Stable:
		return fmt.Sprintf("%d secret(s) replaced by [SECRET-…] placeholders, the same in every output of this case", r.Secrets)
	}
	return fmt.Sprintf("%d secret(s) replaced by [SECRET-…] placeholders, this output's own (the workspace cannot be written)", r.Secrets)
}

// redactAll redacts v (a report, an export's lines) with the case's
// redactor unless cfg says not to, and says what it did.
func redactAll(ws *incident.Workspace, cfg options, v any) Redaction {
	o := newOutput(ws, cfg)
	o.redact(v)
	return o.done()
}

// output redacts the parts of one output as they are written, with one
// redactor, so that its placeholders agree from the first line to the last.
type output struct {
	red    *redact.Redactor // nil: unredacted
	stable bool
}

func newOutput(ws *incident.Workspace, cfg options) *output {
	if cfg.unredacted {
		return &output{}
	}
	red, stable := ws.Redactor()
	return &output{red: red, stable: stable}
}

// timelineRedactor is what the agents' timelines are redacted with: the
// output's own, or when it is unredacted, a keyed one all the same (the
// timeline is the assistant's offline reading, which is always redacted).
func (o *output) timelineRedactor(ws *incident.Workspace) *redact.Redactor {
	if o.red != nil {
		return o.red
	}
	red, _ := ws.Redactor()
	return red
}

func (o *output) redact(v any) {
	if o.red != nil {
		redact.Walk(v, o.red)
	}
}

func (o *output) done() Redaction {
	if o.red == nil {
		return Redaction{Off: true}
	}
	return Redaction{Secrets: o.red.Secrets(), Stable: o.stable}
}

// At stamps the report as generated at t (and runs any fresh check
// as of t) instead of as of its journal head and evidence.
func At(t time.Time) Option {
	return func(c *options) { c.now = t }
}

// BuiltBy records the cordon version and the command line that built the
// report.
func BuiltBy(version string, command []string) Option {
	return func(c *options) { c.built.Cordon, c.built.Command = version, append([]string{}, command...) }
}

// Build gathers the report of the workspace from its evidence and its
// journal. It only reads: checks never journaled are run for the report and
// not journaled.
func Build(ctx context.Context, ws *incident.Workspace, opts ...Option) (Report, error) {
	cfg := optionsOf(opts)
	out := newOutput(ws, cfg)
	r := Report{Incident: filepath.Base(filepath.Clean(ws.Dir)), Agents: []Agent{}, Findings: []Finding{}}
	c, err := ws.Config()
	if err != nil {
		return r, err
	}
	pb, err := c.LoadPlaybook()
	if err != nil {
		return r, err
	}
	findings, err := ws.CachedFindings(ctx)
	if err != nil {
		return r, err
	}
	entries, err := ws.JournalEntries()
	if err != nil {
		return r, err
	}
	state := incident.FoldJournal(entries)
	cs, err := ws.Case(ctx, state)
	if err != nil {
		return r, err
	}
	subject := cs.Subject

	counts := ws.Counts()
	sp, err := ws.MainSpan(ctx)
	if err != nil {
		return r, err
	}
	if cfg.now.IsZero() {
		cfg.now = asOf(entries, sp.Last)
	}
	r.Generated = cfg.now.UTC()
	r.Summary = summarize(counts, sp, cs, state, findings)
	for _, a := range subject {
		ar, err := agentReport(ctx, ws, out, a, agentFindings(findings, a))
		if err != nil {
			return r, err
		}
		r.Agents = append(r.Agents, ar)
	}
	if r.Attribution, err = attributionTable(ctx, ws); err != nil {
		return r, err
	}
	for _, f := range findings {
		r.Findings = append(r.Findings, reportFinding(f))
	}
	if r.Ranking, err = ws.AgentRanking(ctx); err != nil {
		return r, err
	}
	if r.Suppressions, err = suppressions(ctx, ws, findings, r.Findings); err != nil {
		return r, err
	}
	if r.Layers, err = layerStatus(ctx, ws, pb, cs, entries, cfg.now); err != nil {
		return r, err
	}
	r.Impact = impact(cs, r.Layers, r.Attribution.Sessions)
	r.Summary.ImpactLine = r.Impact.Line()
	r.Actions, r.Exchanges, r.ChecksJournaled = activity(entries)
	r.Evidence = evidenceReceived(entries)
	if r.Interventions, err = interventions(ctx, ws); err != nil {
		return r, err
	}
	if r.Open, err = openItems(ctx, ws, pb, state, r.Layers, findings, cs, cfg.now); err != nil {
		return r, err
	}
	r.Journal, err = verifyJournal(ws)
	if err != nil {
		return r, err
	}
	r.Summary.Containment = containmentLine(r.Layers)
	r.Summary.JournalLine = r.Journal.Line()
	if r.Lanes, err = lanes(ctx, ws, r, cs); err != nil {
		return r, err
	}
	r.Graph = graph(r, cs)
	r.Built = cfg.built
	r.Built.JournalSeq, r.Built.JournalHead = r.Journal.Seq, r.Journal.Head
	r.Name = incidentName(c.Name, r.Summary)
	r.Front = front(r, cs, entries)
	// redacted last, so that the first page and the pictures' data are too
	out.redact(&r)
	r.Redaction = out.done()
	r.Summary.RedactionLine = r.Redaction.Line()
	return r, nil
}

// Provenance is what built the report and from what: cordon's version,
// the command line, and the journal head it read.
type Provenance struct {
	Cordon      string   `json:"cordon,omitempty"`
	Command     []string `json:"command,omitempty"`
	JournalSeq  int64    `json:"journal_seq"`
	JournalHead string   `json:"journal_head"`
}

// Line says what built the report and from what, in one line.
func (b Provenance) Line(at time.Time) string {
	s := fmt.Sprintf("As of %s, from journal head %d %s", reportTime(at), b.JournalSeq, orNone(b.JournalHead))
	if b.Cordon != "" {
		s += "; built by cordon " + b.Cordon
	}
	if len(b.Command) > 0 {
		s += ": " + incident.CommandLine(b.Command)
	}
	return s + "."
}

// asOf is the time a report without At is stamped with: the later of the
// journal's last entry and the last event, so that it follows from the
// case and not from the clock.
func asOf(entries []journal.Entry, last time.Time) time.Time {
	t := last
	if len(entries) > 0 && entries[len(entries)-1].Time.After(t) {
		t = entries[len(entries)-1].Time
	}
	return t.UTC()
}

// summarize fills the summary's counts and subject.
func summarize(c evidence.Counts, sp evidence.Span, cs incident.Case, s incident.CaseState, findings []detect.Finding) Summary {
	sum := Summary{First: sp.First.UTC(), Last: sp.Last.UTC(), Events: c.Total, Subject: cs.Subject,
		SubjectFrom: cs.SubjectFrom, Findings: len(findings), KilledAt: cs.ContainedAt.UTC(), ContainedAt: cs.Assessment.ContainedAt.UTC()}
	if sp.Outside() > 0 {
		sum.Outside, sum.OutsideQuery = sp.OutsideLine(), sp.Query().String()
	}
	if cs.SubjectFrom == "journal" {
		sum.SubjectBy = s.SubjectBy.Name
	}
	if sum.Subject == nil {
		sum.Subject = []string{}
	}
	sum.BySource = sortedCounts(c.Fields["source"])
	sum.BySeverity = []evidence.Count{}
	sev := map[string]int64{}
	for _, f := range findings {
		sev[f.Severity]++
	}
	for _, name := range []string{detect.SeverityCritical, detect.SeverityHigh, detect.SeverityMedium, detect.SeverityLow, detect.SeverityInfo} {
		if sev[name] > 0 {
			sum.BySeverity = append(sum.BySeverity, evidence.Count{Value: name, Count: sev[name]})
		}
	}
	return sum
}

// sortedCounts turns a count map into counts sorted by value, the empty
// value left out.
func sortedCounts(m map[string]int64) []evidence.Count {
	out := []evidence.Count{}
	for v, n := range m {
		if v != "" && n > 0 {
			out = append(out, evidence.Count{Value: v, Count: n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Value < out[j].Value })
	return out
}

func agentFindings(fs []detect.Finding, agent string) []detect.Finding {
	var out []detect.Finding
	for _, f := range fs {
		if f.Agent == agent {
			out = append(out, f)
		}
	}
	return out
}

func reportFinding(f detect.Finding) Finding {
	return Finding{ID: f.ID, Detector: f.Detector, Title: f.Title, Agent: f.Agent, Severity: f.Severity,
		Start: f.Start.UTC(), End: f.End.UTC(), Explanation: f.Explanation, Phase: f.Phase, Matches: f.Matches, Tags: f.Tags,
		Events: capList(f.Events, maxReportIDs), EventCount: len(f.Events), All: capList(f.Events, maxAppendixIDs)}
}

// capList returns the first n items of l, never nil.
func capList(l []string, n int) []string {
	return append([]string{}, l[:min(n, len(l))]...)
}

// containmentLine counts the layers by status.
func containmentLine(layers []LayerStatus) string {
	if len(layers) == 0 {
		return "the playbook has no kill-switch layers"
	}
	n := map[incident.CheckStatus]int{}
	for _, l := range layers {
		n[l.Status]++
	}
	s := fmt.Sprintf("%d of %d kill-switch layers verified", n[incident.CheckVerified], len(layers))
	for _, st := range []incident.CheckStatus{incident.CheckNotVerified, incident.CheckNoEvidence, incident.CheckNotRun} {
		if n[st] > 0 {
			s += fmt.Sprintf("; %d %s", n[st], st)
		}
	}
	return s
}

// verifyJournal checks the hash chain.
func verifyJournal(ws *incident.Workspace) (JournalCheck, error) {
	v, err := ws.VerifyJournal()
	if err != nil {
		return JournalCheck{}, err
	}
	jc := JournalCheck{OK: v.OK(), Entries: v.Entries, Seq: v.Seq, Head: v.Hash}
	if v.Problem != nil {
		jc.Problem = v.Problem.String()
	}
	return jc, nil
}

// Line is the verification in one line.
func (j JournalCheck) Line() string {
	switch {
	case !j.OK:
		return fmt.Sprintf("does not verify: %s (the first %d entries verify)", j.Problem, j.Entries)
	case j.Entries == 0:
		return "verified: the journal is empty"
	}
	return fmt.Sprintf("verified: %d entries, head %d %s", j.Entries, j.Seq, j.Head)
}
