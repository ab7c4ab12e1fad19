package incident

import (
	"context"
	"errors"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/playbook"
)

// CheckStatus is the answer of an evidence check.
type CheckStatus string

// The answers a check gives. A check that finds nothing where nothing could
// have been seen says NoEvidence, never Verified.
const (
	CheckVerified    CheckStatus = "verified"
	CheckNotVerified CheckStatus = "not verified"
	CheckNoEvidence  CheckStatus = "no evidence available"
	CheckNotRun      CheckStatus = "not run"
)

// CheckResult is what a step's evidence check found.
type CheckResult struct {
	Step   string      `json:"step"`
	Title  string      `json:"title"`
	Status CheckStatus `json:"status"`
	// Detail is the one line a responder reads: "37 events since 14:21:03"
	// or why the check could not run.
	Detail string `json:"detail"`
	// After is the start of the window counted (zero: the whole incident).
	After time.Time `json:"after,omitzero"`
	// Matched counts the events the check's queries found in the window;
	// Capped says the count stopped at maxCheckEvents per query.
	Matched int  `json:"matched"`
	Capped  bool `json:"capped,omitempty"`
	// Coverage counts the events in the window that could have shown it.
	Coverage int `json:"coverage"`
	// First is the earliest matching event; Events up to maxCheckSample ids.
	First   time.Time `json:"first,omitzero"`
	Events  []string  `json:"events,omitempty"`
	Queries []string  `json:"queries,omitempty"`
	// Missing are variables with no value here: the queries naming them
	// were left out.
	Missing []string  `json:"missing,omitempty"`
	Checked time.Time `json:"checked"`
	// Layer is the Assessment's verdict of the step's layer, and
	// Capabilities its verdicts of the subject's capabilities of that
	// layer: what decides a layer step's status.
	Layer        *capability.LayerVerdict `json:"layer,omitempty"`
	Capabilities []capability.Verdict     `json:"capabilities,omitempty"`
}

// Bounds of a check: ids kept per query to count the union exactly, and ids
// shown as evidence.
const (
	maxCheckEvents = 1000
	maxCheckSample = 20
)

// RunCheck evaluates a step's evidence check for the case's variables.
func RunCheck(ctx context.Context, st evidence.Store, step *playbook.Step, vars playbook.Vars, now time.Time) (CheckResult, error) {
	res := CheckResult{Step: step.ID, Status: CheckNotRun, Checked: now.UTC()}
	c := step.Check
	if c == nil {
		res.Detail = "this step has no evidence check"
		return res, nil
	}
	res.Title, _ = playbook.ExpandText(c.Title, vars)
	if c.After != "" {
		t, ok := vars.Time(c.After)
		if !ok {
			res.Detail = fmt.Sprintf("needs %s: %s", c.After, neededFor(c.After))
			return res, nil
		}
		res.After = t
	}
	rendered, err := c.Render(vars)
	if err != nil {
		var me *playbook.MissingVarError
		if errors.As(err, &me) {
			res.Detail = fmt.Sprintf("needs %s: the subject's sessions name none", strings.Join(me.Names, ", "))
			return res, nil
		}
		return res, err
	}
	queries := rendered.Queries
	res.Missing = rendered.Missing
	res.Queries = queries
	seen := map[string]bool{}
	add := func(ev evidence.Event) error {
		if seen[ev.ID] || reused(ev, vars) {
			return nil
		}
		seen[ev.ID] = true
		if res.First.IsZero() || ev.Time.Before(res.First) {
			res.First = ev.Time
		}
		if len(res.Events) < maxCheckSample {
			res.Events = append(res.Events, ev.ID)
		}
		return nil
	}
	for _, text := range queries {
		q, err := evidence.Parse(text)
		if err != nil {
			return res, fmt.Errorf("check %s: %q: %w", step.ID, text, err)
		}
		hits, err := st.Search(ctx, evidence.Request{Query: q, Since: res.After, Sort: evidence.SortTime, Limit: maxCheckEvents})
		if err != nil {
			return res, fmt.Errorf("check %s: %q: %w", step.ID, text, err)
		}
		if hits.Total > uint64(len(hits.Events)) {
			res.Capped = true
		}
		for _, ev := range hits.Events {
			if len(ev.Cut) == 0 { // the index holds it whole: its answer stands
				add(ev)
			}
		}
		// A padded command line still running after containment is a
		// capability alive: events the index holds cut are matched whole.
		if err := evidence.EachCut(ctx, st, q, res.After, add); err != nil {
			return res, fmt.Errorf("check %s: %q: %w", step.ID, text, err)
		}
	}
	res.Matched = len(seen)
	if len(c.Coverage) > 0 && len(rendered.Coverage) == 0 {
		// every coverage query names a key this case does not have:
		// nothing could have shown it, which is not "every event could"
		res.Coverage = 0
	} else if res.Coverage, err = coverage(ctx, st, rendered.Coverage, res.After); err != nil {
		return res, fmt.Errorf("check %s: %w", step.ID, err)
	}
	res.Status, res.Detail = judge(c, res)
	if len(res.Missing) > 0 {
		res.Detail += fmt.Sprintf("; not checked by %s: unknown for this case", strings.Join(res.Missing, ", "))
	}
	return res, nil
}

// reused reports an event another agent owns through a key the subject
// had before: its IP, container or pod went to another sandbox after the
// subject's session (attribution says so, by the interval in force). That
// is not the subject's capability still alive. An event tied to another
// agent by a credential still counts: the subject's credential, used by
// someone else, is live.
func reused(ev evidence.Event, vars playbook.Vars) bool {
	switch ev.AttributedVia {
	case attribution.ViaIP, attribution.ViaContainer, attribution.ViaPod:
		return ev.Agent != "" && !slices.Contains(vars[playbook.VarAgent], ev.Agent)
	}
	return false
}

// coverage counts the events in the window that could have shown what the
// check looks for; with no coverage queries every event counts.
func coverage(ctx context.Context, st evidence.Store, qs []string, after time.Time) (int, error) {
	if len(qs) == 0 {
		qs = []string{""}
	}
	n := 0
	for _, text := range qs {
		q, err := evidence.Parse(text)
		if err != nil {
			return 0, fmt.Errorf("coverage %q: %w", text, err)
		}
		h, err := st.Search(ctx, evidence.Request{Query: q, Since: after, Limit: 1})
		if err != nil {
			return 0, fmt.Errorf("coverage %q: %w", text, err)
		}
		n += int(h.Total)
	}
	return n, nil
}

// judge turns counts into the answer and its line.
func judge(c *playbook.Check, r CheckResult) (CheckStatus, string) {
	window := "in the incident"
	if !r.After.IsZero() {
		window = "since " + Stamp(r.After)
	}
	count := fmt.Sprintf("%d", r.Matched)
	if r.Capped {
		count += "+"
	}
	events := "events"
	if r.Matched == 1 && !r.Capped {
		events = "event"
	}
	switch {
	case c.Expect == playbook.ExpectNone && r.Matched > 0:
		return CheckNotVerified, fmt.Sprintf("%s %s %s, first at %s", count, events, window, Stamp(r.First))
	case c.Expect == playbook.ExpectSome && r.Matched > 0:
		return CheckVerified, fmt.Sprintf("%s %s %s", count, events, window)
	case r.Coverage == 0:
		return CheckNoEvidence, fmt.Sprintf("no events that could show it %s", window)
	case c.Expect == playbook.ExpectNone:
		return CheckVerified, fmt.Sprintf("no matching events %s; %d that could show it", window, r.Coverage)
	}
	return CheckNotVerified, fmt.Sprintf("no matching events %s", window)
}

// Summary is the status with its detail, as the console and report print it:
// "not verified (37 events since 14:21:03, first at 14:22:10)".
// A layer that stopped only after something of it was live past the kill
// says when, never a plain "verified".
func (r CheckResult) Summary() string {
	status := string(r.Status)
	if l := r.Layer; l != nil && l.State == capability.Stopped && l.LiveAfterKill {
		status = "stopped at " + Stamp(l.StoppedAt) + ", live after the kill until then"
	}
	if r.Detail == "" {
		return status
	}
	return fmt.Sprintf("%s (%s)", status, r.Detail)
}

// neededFor says how a time variable gets its value.
func neededFor(name string) string {
	switch name {
	case playbook.VarContainedAt:
		return "mark the step that stops the agent done (it records the containment time)"
	case playbook.VarSince, playbook.VarUntil:
		return "name the agent under investigation"
	}
	return "no value yet"
}

// Stamp writes a time the way the case shows it: check lines, and the
// report that quotes them.
func Stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// CheckSteps runs CheckStep for each step, several at once (as many as
// the process may use cores: each check is a few searches of the index,
// which answers them side by side), and returns the results in the
// steps' order, up to the first that failed, with its error.
func CheckSteps(ctx context.Context, st evidence.Store, steps []*playbook.Step, cs Case, now time.Time) ([]CheckResult, error) {
	out := make([]CheckResult, len(steps))
	errs := make([]error, len(steps))
	sem := make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))
	var wg sync.WaitGroup
	for i, step := range steps {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = CheckStep(ctx, st, step, cs, now)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return out[:i], err
		}
	}
	return out, nil
}
