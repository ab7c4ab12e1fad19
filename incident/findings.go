package incident

import (
	"context"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/redact"
)

// FindingsOptions tune the findings use case.
type FindingsOptions struct {
	// Agent keeps only this agent's findings ("" keeps all). Detectors
	// still read every agent: rates compare an agent with its peers.
	Agent string
	// MinSeverity drops findings below it ("" keeps all).
	MinSeverity string
	// Rules replace the built-in rules when not nil.
	Rules []detect.Rule
	// Secrets names the keys in tool calls and outputs in the capability
	// sets (the workspace's keyed redactor, see Workspace.Redactor); nil
	// looks for none.
	Secrets *redact.Redactor
}

// RunDetectors runs the detectors over the evidence in st now, with the
// rules opt gives (the built-in ones by default), and returns their
// findings grouped per agent in the ranking's order (detect.SortRanked). Nothing is
// kept: a console and every use case of a workspace read
// Workspace.CachedFindings instead. Until ingest stores attribution,
// events are attributed in memory as the detectors read them.
func RunDetectors(ctx context.Context, st evidence.Store, opt FindingsOptions) ([]detect.Finding, error) {
	r, err := Scan(ctx, st, opt)
	return r.Findings, err
}

// Scan runs the detectors over the incident's evidence: the findings, kept
// as FindingsOptions say, and every agent's capability set.
func Scan(ctx context.Context, st evidence.Store, opt FindingsOptions) (detect.Result, error) {
	rules, err := opt.rules()
	if err != nil {
		return detect.Result{}, err
	}
	return scanSource(ctx, evidence.StoreSource{Store: st}, st.Counts(), rules, opt)
}

// rules are the rules the options name (the built-in ones when none),
// once the options are checked.
func (opt FindingsOptions) rules() ([]detect.Rule, error) {
	if opt.MinSeverity != "" && detect.SeverityRank(opt.MinSeverity) < 0 {
		return nil, fmt.Errorf("severity %q: want info, low, medium, high or critical", opt.MinSeverity)
	}
	if opt.Rules != nil {
		return opt.Rules, nil
	}
	rules, err := detect.Builtin()
	if err != nil {
		return nil, fmt.Errorf("built-in rules: %w", err)
	}
	return rules, nil
}

// scanSource runs the rules over src, whose counts are c.
func scanSource(ctx context.Context, src detect.Source, c evidence.Counts, rules []detect.Rule, opt FindingsOptions) (detect.Result, error) {
	eng := detect.Engine{Rules: rules, Attribute: !AttributionStored(c), Secrets: opt.Secrets}
	follow, end := tuneReplayGC() // to the end of Done, which the pass's state is live for
	defer end()
	p, err := eng.Start(ctx, src)
	if err != nil {
		return detect.Result{}, fmt.Errorf("findings: %w", err)
	}
	if err := replay(ctx, p, src, follow); err != nil {
		return detect.Result{}, fmt.Errorf("findings: %w", err)
	}
	res := p.Done()
	// The pass is garbage now. Collected before the limit goes, it leaves
	// a target of twice the answer; left to the next cycle, the target
	// would be twice the pass's state and the heap would grow to it. What
	// it held goes back to the system: without the limit, the scavenger
	// would return it slowly, and what is made of the answer next (the
	// kept result) would be resident beside it.
	p = nil
	debug.FreeOSMemory()
	res.Findings = opt.Filter(res.Findings)
	return res, nil
}

// Filter keeps the findings the options ask for (an agent, a minimum
// severity), in their order, in a new slice.
func (opt FindingsOptions) Filter(all []detect.Finding) []detect.Finding {
	var out []detect.Finding
	for _, f := range all {
		if opt.Agent != "" && f.Agent != opt.Agent {
			continue
		}
		if opt.MinSeverity != "" && detect.SeverityRank(f.Severity) < detect.SeverityRank(opt.MinSeverity) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// Result is the detectors' result over the workspace's evidence with its
// own rules: kept with the case (engine/result.gob) and in memory until
// the evidence, the rules or the engine change; computed, and kept, when
// it is not. The findings slice is shared: copy it before changing it.
func (w *Workspace) Result(ctx context.Context) (detect.Result, error) {
	return w.scan(ctx)
}

// AttributionStored reports whether ingest attributed proxy and sensor
// events: some event's agent came from a key other than its own record.
func AttributionStored(c evidence.Counts) bool {
	for via, n := range c.Fields["attributed_via"] {
		if via != "" && via != "record" && n > 0 {
			return true
		}
	}
	return false
}

// CachedFindings are the findings of the workspace's detection rules (the
// built-in ones and those cordon.yaml adds) over the incident, from one
// run of the detectors kept until the evidence changes and shared by
// every reader of the workspace: the consoles' Findings panes, the subject
// of a case, each check, the report and the assistant. On a million events
// a run takes seconds. The slice is shared: callers copy it before
// changing it (Handle.Findings does).
func (w *Workspace) CachedFindings(ctx context.Context) ([]detect.Finding, error) {
	r, err := w.scan(ctx)
	return r.Findings, err
}

// Capabilities are the agents' capability sets, from the same run of the
// detectors as CachedFindings (and kept with it).
func (w *Workspace) Capabilities(ctx context.Context) (*capability.Set, error) {
	r, err := w.scan(ctx)
	return r.Capabilities, err
}

func (w *Workspace) scan(ctx context.Context) (detect.Result, error) {
	key := w.evidence()
	w.findingsMu.Lock()
	defer w.findingsMu.Unlock()
	// While this process follows its inputs, the answer of the follow's
	// last round is the case's: the index moves on as the next round
	// stores, and its answer comes when that round's detectors end. Run
	// again over the whole index, a reader between the two (the console
	// after each round) would take a pass every round, and hold the next
	// round's answer back while it ran.
	if w.scanned.Findings != nil && (w.findingsKey == key || w.followAnswer) {
		return w.scanned, nil
	}
	if w.isHeld() {
		// OpenHeld read the follow's answer, once; this one is not it
		why := w.stale
		if w.recompute {
			return detect.Result{}, fmt.Errorf("%w: the detectors cannot run again over an index another process holds", ErrHeld)
		}
		if why == "" {
			why = "the rules in force cannot be read, or the workspace keeps no redaction key"
		}
		return detect.Result{}, fmt.Errorf("%w: its kept answer is not of this case now (%s); wait for the follow's next round", ErrHeld, why)
	}
	rules, err := w.rules()
	if err != nil {
		return detect.Result{}, err
	}
	meta, keepable := w.resultMeta()
	if keepable && !w.recompute {
		if r, ok := w.keptScan(meta); ok {
			w.scanned, w.findingsKey = r, key
			return r, nil
		}
	}
	w.detectorRuns++
	if w.shareRuns {
		ctx = context.WithoutCancel(ctx)
	}
	// The replay's memory limit holds until the answer is kept: encoding
	// it allocates about what the answer holds, garbage but for the part
	// being written, and at the default target the heap grew to twice
	// the answer, beside what the replay left unreturned (at ten million
	// events the keeping was the command's peak, 60-80 MB over the
	// replay's).
	_, end := tuneReplayGC()
	defer end()
	r, err := w.scanReplay(ctx, FindingsOptions{Rules: rules, Secrets: w.scanRedactor()})
	if err != nil {
		return detect.Result{}, err
	}
	if r.Findings == nil {
		r.Findings = []detect.Finding{}
	}
	w.scanned, w.findingsKey = r, key
	if keepable {
		// not keeping it costs the next command a pass, nothing more
		_ = w.keepScan(meta, r)
	}
	return r, nil
}

// rules are the workspace's detection rules: the built-in ones and those
// its cordon.yaml adds.
func (w *Workspace) rules() ([]detect.Rule, error) {
	c, err := w.Config()
	if err != nil {
		return nil, err
	}
	return c.LoadRules()
}

// DetectorRuns counts the runs of the detectors over the workspace's
// evidence since it was opened: every reader shares one run until the
// evidence changes, and tests and the bench count on that.
func (w *Workspace) DetectorRuns() int {
	w.findingsMu.Lock()
	defer w.findingsMu.Unlock()
	return w.detectorRuns
}

// evidenceKey changes whenever the evidence does: an ingest adds events, a
// re-attribution moves them between agents.
func evidenceKey(c evidence.Counts) string {
	var b strings.Builder
	// seconds and nanoseconds: UnixNano does not hold the year 9999
	fmt.Fprintf(&b, "%d %d.%09d", c.Total, c.Last.Unix(), c.Last.Nanosecond())
	// the agents and how they were attributed; the decisions and kinds, which
	// a replaced event (a Kubernetes request's final stage) changes though
	// the total does not
	for _, f := range []string{"agent", "attributed_via", "decision", "kind"} {
		vals := c.Fields[f]
		keys := make([]string, 0, len(vals))
		for v := range vals {
			keys = append(keys, v)
		}
		sort.Strings(keys)
		for _, v := range keys {
			fmt.Fprintf(&b, " %s=%s:%d", f, v, vals[v])
		}
	}
	return b.String()
}
