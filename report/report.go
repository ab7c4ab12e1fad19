package report

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
)

// Report is the incident report: the four questions answered from the
// evidence, attribution, findings, the kill switch, what the responders did
// and what is still open. It is plain data: the JSON format is this struct
// as it is, and the Markdown and HTML formats render from it. Text in it
// quotes evidence as recorded; renderers make it safe for their medium.
type Report struct {
	Incident  string    `json:"incident"`
	Generated time.Time `json:"generated"`
	Summary   Summary   `json:"summary"`
	// Impact leads: what left, what is exposed, who else is affected, and
	// whether each capability is stopped.
	Impact Impact `json:"impact"`
	// Agents answer the four questions for each subject agent.
	Agents      []Agent       `json:"agents"`
	Attribution Attribution   `json:"attribution"`
	Findings    []Finding     `json:"findings"`
	Layers      []LayerStatus `json:"layers"`
	// Activity is the journal minus the check results (Layers has those)
	// and the evidence received (Evidence):
	// steps, notes, actions, marks, assistant exchanges, overrides.
	Activity []Entry `json:"activity"`
	// ChecksJournaled counts the check_result entries left out of Activity.
	ChecksJournaled int          `json:"checks_journaled"`
	Open            []OpenItem   `json:"open_items"`
	// Evidence is every input the journal records as received, with the
	// digest `cordon evidence verify` checks it against.
	Evidence []Received   `json:"evidence_received"`
	Journal  JournalCheck `json:"journal"`
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
	// SubjectFrom: "journal" (named by SubjectBy), "findings" (the agent of
	// the most severe finding) or "" (none).
	SubjectFrom string           `json:"subject_from"`
	SubjectBy   string           `json:"subject_by,omitempty"`
	Findings    int              `json:"findings"`
	BySeverity  []evidence.Count `json:"by_severity"`
	ContainedAt time.Time        `json:"contained_at,omitzero"`
	// Containment is the kill switch in one line: "5 of 7 kill-switch
	// layers verified; 2 not verified".
	Containment string `json:"containment"`
	// JournalLine is the journal verification in one line.
	JournalLine string `json:"journal"`
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
	// Events are the first maxReportIDs evidence ids; EventCount all.
	Events     []string `json:"events"`
	EventCount int      `json:"event_count"`
}

// JournalCheck is the outcome of verifying the journal's hash chain.
type JournalCheck struct {
	OK      bool   `json:"ok"`
	Entries int    `json:"entries"`
	Seq     int64  `json:"seq"`
	Head    string `json:"head"`
	Problem string `json:"problem,omitempty"`
}

// maxReportIDs bounds the evidence ids a report line lists.
const maxReportIDs = 10

// Option tunes Build.
type Option func(*options)

type options struct {
	now time.Time
}

// At stamps the report as generated at t (and runs any fresh check
// as of t): what makes a report reproducible.
func At(t time.Time) Option {
	return func(c *options) { c.now = t }
}

// Build gathers the report of the workspace from its evidence and its
// journal. It only reads: checks never journaled are run for the report and
// not journaled.
func Build(ctx context.Context, ws *incident.Workspace, opts ...Option) (Report, error) {
	cfg := options{now: time.Now()}
	for _, o := range opts {
		o(&cfg)
	}
	r := Report{Incident: filepath.Base(filepath.Clean(ws.Dir)), Generated: cfg.now.UTC(), Agents: []Agent{}, Findings: []Finding{}}
	c, err := ws.Config()
	if err != nil {
		return r, err
	}
	pb, err := c.LoadPlaybook()
	if err != nil {
		return r, err
	}
	findings, err := ws.Findings(ctx)
	if err != nil {
		return r, err
	}
	entries, err := ws.Journal().Entries()
	if err != nil {
		return r, fmt.Errorf("read journal: %w", err)
	}
	state := incident.FoldJournal(entries)
	cs, err := ws.Case(ctx, state)
	if err != nil {
		return r, err
	}
	subject := cs.Subject

	counts := ws.Store.Counts()
	sp, err := counts.MainSpan().Exact(ctx, ws.Store)
	if err != nil {
		return r, err
	}
	r.Summary = summarize(counts, sp, cs, state, findings)
	for _, a := range subject {
		ar, err := agentReport(ctx, ws, a, agentFindings(findings, a))
		if err != nil {
			return r, err
		}
		r.Agents = append(r.Agents, ar)
	}
	if r.Attribution, err = attributionTable(ctx, ws.Store); err != nil {
		return r, err
	}
	for _, f := range findings {
		r.Findings = append(r.Findings, reportFinding(f))
	}
	caps, err := ws.Capabilities(ctx)
	if err != nil {
		return r, err
	}
	if r.Layers, err = layerStatus(ctx, ws.Store, pb, cs, caps, entries, cfg.now); err != nil {
		return r, err
	}
	r.Impact = impact(cs, r.Layers, r.Attribution.Sessions)
	r.Summary.ImpactLine = r.Impact.Line()
	r.Activity, r.ChecksJournaled = activity(entries)
	r.Evidence = evidenceReceived(entries)
	r.Open = openItems(pb, state, entries, r.Layers, findings, cs)
	r.Journal, err = verifyJournal(ws.Journal())
	if err != nil {
		return r, err
	}
	r.Summary.Containment = containmentLine(r.Layers)
	r.Summary.JournalLine = r.Journal.Line()
	return r, nil
}

// summarize fills the summary's counts and subject.
func summarize(c evidence.Counts, sp evidence.Span, cs incident.Case, s incident.CaseState, findings []detect.Finding) Summary {
	sum := Summary{First: sp.First.UTC(), Last: sp.Last.UTC(), Events: c.Total, Subject: cs.Subject,
		SubjectFrom: cs.SubjectFrom, Findings: len(findings), ContainedAt: cs.ContainedAt.UTC()}
	if sp.Outside() > 0 {
		sum.Outside, sum.OutsideQuery = sp.OutsideLine(), sp.Query()
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
		Start: f.Start.UTC(), End: f.End.UTC(), Explanation: f.Explanation, Phase: f.Phase,
		Events: capList(f.Events, maxReportIDs), EventCount: len(f.Events)}
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
func verifyJournal(j *journal.Journal) (JournalCheck, error) {
	v, err := j.Verify()
	if err != nil {
		return JournalCheck{}, fmt.Errorf("verify journal: %w", err)
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

// contained reports whether agent counts as stopped: a subject agent whose
// containment time is recorded and every kill-switch layer verified.
func contained(agent string, cs incident.Case, layers []LayerStatus) bool {
	if cs.ContainedAt.IsZero() || !slices.Contains(cs.Subject, agent) {
		return false
	}
	for _, l := range layers {
		if l.Status != incident.CheckVerified {
			return false
		}
	}
	return true
}
