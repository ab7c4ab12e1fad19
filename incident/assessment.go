package incident

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/playbook"
)

// Assess is the case's one answer to "is every capability stopped?": the
// capability package's rule over the capability sets and the sources'
// coverage from the run of the detectors every reader shares, for a
// subject and kill time, as of asOf (zero: all the evidence). Every
// reader — check, subject, the ranking, the report, the console, the
// assistant — renders this value; none decides "stopped" on its own.
func (w *Workspace) Assess(ctx context.Context, subject []string, kill, asOf time.Time) (capability.Assessment, error) {
	res, err := w.scan(ctx)
	if err != nil {
		return capability.Assessment{}, err
	}
	return capability.Assess(res.Capabilities, subject, kill, asOf, res.Coverage), nil
}

// Assessment is the Assessment of the case the journal describes now:
// its subject, at the kill time it records (contained_at, which a step's
// --at sets), on all the evidence.
func (w *Workspace) Assessment(ctx context.Context) (capability.Assessment, error) {
	return w.AssessmentAsOf(ctx, time.Time{})
}

// AssessmentAsOf is the same Assessment on the evidence up to asOf: what
// a responder could have known then (a drill's debrief, an evaluation).
func (w *Workspace) AssessmentAsOf(ctx context.Context, asOf time.Time) (capability.Assessment, error) {
	s, err := w.State()
	if err != nil {
		return capability.Assessment{}, err
	}
	key, keyed := "", false
	if asOf.IsZero() {
		if key, keyed = w.assessmentKey(s); keyed {
			if a, ok := w.cachedAssessment(key); ok {
				return a, nil
			}
		}
	}
	cs, err := w.Case(ctx, s)
	if err != nil {
		return capability.Assessment{}, err
	}
	if !asOf.IsZero() {
		return w.Assess(ctx, cs.Subject, cs.ContainedAt, asOf)
	}
	if keyed {
		w.keepAssessment(key, cs.Assessment)
	}
	return cs.Assessment, nil
}

// Assessment is the case's Assessment (Workspace.Assessment).
func (h *Handle) Assessment(ctx context.Context) (capability.Assessment, error) {
	return h.ws.Assessment(ctx)
}

// Headline is the Assessment in one line, its layers named by the
// playbook's titles: the banner, check's status and the console say it.
func Headline(a capability.Assessment) string {
	return a.HeadlineWith(func(l string) string { return playbook.Layer(l).Title() })
}

// layerState is how a check reports a layer's verdict.
func layerState(s capability.State) CheckStatus {
	switch s {
	case capability.Stopped:
		return CheckVerified
	case capability.Live:
		return CheckNotVerified
	}
	return CheckNoEvidence
}

// renderLayer puts the Assessment's verdict of the step's layer on a
// step's check: the layer's state decides, the step's own queries are
// evidence shown beside it.
func renderLayer(res *CheckResult, step *playbook.Step, a *capability.Assessment) {
	lv, ok := a.Layer(string(step.Layer))
	if !ok {
		return
	}
	queries := res.Detail
	res.Status = layerState(lv.State)
	res.Detail = lv.Line + "; its queries (evidence beside the verdict): " + queries
	res.Layer = &lv
	for _, v := range a.Capabilities {
		if v.Layer == lv.Layer {
			res.Capabilities = append(res.Capabilities, v)
		}
	}
	events := append([]string{}, lv.Events...)
	for _, id := range res.Events {
		if len(events) >= maxCheckSample {
			break
		}
		events = append(events, id)
	}
	res.Events = events
}

// CheckStep runs a step's evidence check for the case and, for a step that
// closes a kill-switch layer, renders the case's Assessment of that layer:
// the layer's verdict is the answer; the queries are evidence beside it.
func CheckStep(ctx context.Context, st evidence.Store, step *playbook.Step, cs Case, now time.Time) (CheckResult, error) {
	res, err := RunCheck(ctx, st, step, cs.Vars(), now)
	if err != nil || step.Layer == "" || cs.ContainedAt.IsZero() || res.Status == CheckNotRun {
		return res, err
	}
	renderLayer(&res, step, &cs.Assessment)
	return res, nil
}

// The answers of a check whose layers are not all stopped: cmd maps them
// to exit statuses.
var (
	ErrLive       = errors.New("a capability is live")
	ErrCannotTell = errors.New("cannot tell whether every capability is stopped")
)

// Verdict is the error a check of the layers answers with: nil when the
// Assessment has every layer stopped, ErrLive when one is live, else
// ErrCannotTell (no kill time recorded counts: nothing is judged yet).
func Verdict(a capability.Assessment) error {
	switch {
	case a.Kill.IsZero():
		return fmt.Errorf("%w: no kill time is recorded (mark contain.stop done, with --at when it was earlier)", ErrCannotTell)
	case a.State == capability.Stopped:
		return nil
	case a.State == capability.Live:
		return fmt.Errorf("%w: %s", ErrLive, Headline(a))
	}
	return fmt.Errorf("%w: %s", ErrCannotTell, Headline(a))
}

// HarnessKills is, of the agents of subject, each one its harness
// stopped and when (detect.Result.Kills: every session it began ended,
// the last by the gateway's ledger with reason killed). It is what a
// responder may record as the case's kill time (contain.stop done --at);
// the Assessment never takes it by itself.
func (w *Workspace) HarnessKills(ctx context.Context, subject []string) (map[string]time.Time, error) {
	res, err := w.scan(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]time.Time{}
	for _, a := range subject {
		if t, ok := res.Kills[a]; ok {
			out[a] = t
		}
	}
	return out, nil
}
