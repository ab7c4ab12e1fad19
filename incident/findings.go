package incident

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
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
}

// Findings runs the detectors over the incident's evidence and returns
// their findings grouped per agent, most severe first (detect.Sort).
// Until ingest stores attribution, events are attributed in memory as the
// detectors read them.
func Findings(ctx context.Context, st evidence.Store, opt FindingsOptions) ([]detect.Finding, error) {
	r, err := Scan(ctx, st, opt)
	return r.Findings, err
}

// Scan runs the detectors over the incident's evidence: the findings, kept
// as FindingsOptions say, and every agent's capability set.
func Scan(ctx context.Context, st evidence.Store, opt FindingsOptions) (detect.Result, error) {
	if opt.MinSeverity != "" && detect.SeverityRank(opt.MinSeverity) < 0 {
		return detect.Result{}, fmt.Errorf("severity %q: want info, low, medium, high or critical", opt.MinSeverity)
	}
	rules := opt.Rules
	if rules == nil {
		var err error
		if rules, err = detect.Builtin(); err != nil {
			return detect.Result{}, fmt.Errorf("built-in rules: %w", err)
		}
	}
	eng := detect.Engine{Rules: rules, Attribute: !AttributionStored(st.Counts())}
	res, err := eng.Scan(ctx, StoreSource{Store: st})
	if err != nil {
		return detect.Result{}, fmt.Errorf("findings: %w", err)
	}
	all := res.Findings
	res.Findings = nil
	for _, f := range all {
		if opt.Agent != "" && f.Agent != opt.Agent {
			continue
		}
		if opt.MinSeverity != "" && detect.SeverityRank(f.Severity) < detect.SeverityRank(opt.MinSeverity) {
			continue
		}
		res.Findings = append(res.Findings, f)
	}
	return res, nil
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

// sourcePage is how many events StoreSource reads per timeline page.
const sourcePage = 2000

// StoreSource lets the detectors read a store: each query pages through
// the timeline in time order, so that no more than a page of events is
// held at once.
type StoreSource struct {
	Store evidence.Store
	// PageSize is how many events a page holds (0: 2000).
	PageSize int
	// Since skips events before it (zero: none).
	Since time.Time
}

// Each calls fn with every event matching query, oldest first. The next
// page is read while fn works through the current one: reading and
// decoding events and the detectors' matching then use both cores.
func (s StoreSource) Each(ctx context.Context, query string, fn func(evidence.Event) error) error {
	req := evidence.PageRequest{Query: query, Since: s.Since, Limit: s.PageSize}
	if req.Limit <= 0 {
		req.Limit = sourcePage
	}
	ctx, cancel := context.WithCancel(ctx)
	type result struct {
		page *evidence.Page
		err  error
	}
	pages := make(chan result, 1)
	done := make(chan struct{})
	// On any return, stop the reader and wait for it: a caller may close
	// the store right after.
	defer func() { cancel(); <-done }()
	go func() {
		defer close(done)
		defer close(pages)
		for {
			page, err := s.Store.Page(ctx, req)
			select {
			case pages <- result{page, err}:
			case <-ctx.Done():
				return
			}
			if err != nil || !page.More || len(page.Events) == 0 {
				return
			}
			req.After = page.Last
		}
	}()
	for r := range pages {
		if r.err != nil {
			return r.err
		}
		for _, ev := range r.page.Events {
			if err := fn(ev); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// Count counts the events matching query (a detect.Counter: the detectors
// read every event once when their queries would read more).
func (s StoreSource) Count(ctx context.Context, query string) (int64, error) {
	h, err := s.Store.Search(ctx, evidence.Request{Query: query, Since: s.Since, Limit: 1})
	if err != nil {
		return 0, err
	}
	return int64(h.Total), nil
}

// Findings runs the workspace's detection rules (the built-in ones and
// those cordon.yaml adds) over the incident. The result is kept until the
// evidence changes: the subject of a case, each check, the report and the
// assistant all start from it, and on a million events a run takes
// seconds.
func (w *Workspace) Findings(ctx context.Context) ([]detect.Finding, error) {
	r, err := w.scan(ctx)
	return r.Findings, err
}

// Capabilities are the agents' capability sets, from the same run of the
// detectors as Findings (and kept with it).
func (w *Workspace) Capabilities(ctx context.Context) (*detect.Capabilities, error) {
	r, err := w.scan(ctx)
	return r.Capabilities, err
}

func (w *Workspace) scan(ctx context.Context) (detect.Result, error) {
	key := evidenceKey(w.Store.Counts())
	w.findingsMu.Lock()
	defer w.findingsMu.Unlock()
	if w.scanned.Findings != nil && w.findingsKey == key {
		return w.scanned, nil
	}
	c, err := w.Config()
	if err != nil {
		return detect.Result{}, err
	}
	rules, err := c.LoadRules()
	if err != nil {
		return detect.Result{}, err
	}
	r, err := Scan(ctx, w.Store, FindingsOptions{Rules: rules})
	if err != nil {
		return detect.Result{}, err
	}
	if r.Findings == nil {
		r.Findings = []detect.Finding{}
	}
	w.scanned, w.findingsKey = r, key
	return r, nil
}

// evidenceKey changes whenever the evidence does: an ingest adds events, a
// re-attribution moves them between agents.
func evidenceKey(c evidence.Counts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %d", c.Total, c.Last.UnixNano())
	for _, f := range []string{"agent", "attributed_via"} {
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
