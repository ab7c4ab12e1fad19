package incident

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/playbook"
)

// CapabilityCheck is what the kill switch found of one capability of the
// subject: whether it was used or alive after its stop time.
type CapabilityCheck struct {
	Kind   string      `json:"kind"`
	Value  string      `json:"value"`
	Origin string      `json:"origin"`
	Owner  string      `json:"owner,omitempty"`
	Agent  string      `json:"agent"`
	Status CheckStatus `json:"status"`
	// Line is the one line a responder reads, naming the capability.
	Line string `json:"line"`
	// Stop is when it had to be dead: the later of containment and its
	// own end.
	Stop time.Time `json:"stop"`
	// LiveFor is how long it stayed live after containment (its own end,
	// or its last use, after the kill).
	LiveFor time.Duration `json:"live_for,omitempty"`
	Events  []string      `json:"events,omitempty"`
}

// LayerOf is the kill-switch layer that stops a kind of capability ("" for
// none: data that left cannot be stopped, only reported).
func LayerOf(kind string) playbook.Layer {
	switch kind {
	case detect.CapCredential:
		return playbook.LayerCachedCredentials
	case detect.CapPlace:
		return playbook.LayerExternalSessions
	case detect.CapJob:
		return playbook.LayerQueuedJobs
	case detect.CapProcess:
		return playbook.LayerBackgroundProcesses
	case detect.CapSchedule:
		return playbook.LayerScheduledFollowUps
	case detect.CapPersisted:
		return playbook.LayerPersistedState
	}
	return ""
}

// UseSources are the sources that can show a use of a credential of the
// given kind (as its session_start names it): a proxy login is seen by the
// proxy, a cloud key only by that cloud's audit log (ingest/audit reads
// each; the answer names the one that is missing when none is ingested).
func UseSources(credKind string) (query, missing string) {
	k := strings.ToLower(credKind)
	switch {
	case strings.Contains(k, "proxy"):
		return "+source:proxy", "the egress proxy's log"
	case strings.Contains(k, "aws"):
		return "+format:cloudtrail", "an AWS CloudTrail log"
	case strings.Contains(k, "gcp"), strings.Contains(k, "google"):
		return "+format:gcp-audit", "a Google Cloud audit log"
	case strings.Contains(k, "github"):
		return "+format:github-audit", "a GitHub audit log"
	case strings.Contains(k, "kube"), strings.Contains(k, "k8s"), strings.Contains(k, "service-account"):
		return "+format:k8s-audit", "a Kubernetes audit log"
	}
	return "", "an audit log of the service that accepts it"
}

// seenFunc reports whether events matching query were reported after t:
// a source that could have shown a use was there to show it.
type seenFunc func(query string, after time.Time) bool

// CheckCapabilities judges every capability of the subject that layer
// stops: not verified when one was used (not refused) after its stop time,
// no evidence when nothing could have shown its use or its end, verified
// otherwise.
func CheckCapabilities(layer playbook.Layer, caps []detect.Capability, contained time.Time, seen seenFunc) []CapabilityCheck {
	var out []CapabilityCheck
	for i := range caps {
		c := &caps[i]
		if LayerOf(c.Kind) != layer || c.Kind == detect.CapPlace && c.Origin == detect.OriginGranted {
			continue
		}
		out = append(out, checkCapability(c, contained, seen))
	}
	return out
}

func checkCapability(c *detect.Capability, contained time.Time, seen seenFunc) CapabilityCheck {
	stop := c.StopTime(contained)
	r := CapabilityCheck{Kind: c.Kind, Value: c.Value, Origin: c.Origin, Owner: c.Owner, Agent: c.Agent, Stop: stop}
	name := describeCap(c)
	if live := c.UsedAfter(stop); len(live) > 0 {
		last := live[len(live)-1]
		r.Status = CheckNotVerified
		r.LiveFor = last.Time.Sub(contained)
		from := "from " + fromList(live)
		if c.Kind == detect.CapPlace {
			from = "with " + fromList(live)
		}
		r.Line = fmt.Sprintf("%s used %s %s after %s; last %s", name, times(len(live)), from, Stamp(stop), hms(last.Time))
		if c.SkewMargin > 0 && last.Time.Sub(stop) < c.SkewMargin {
			r.Line += fmt.Sprintf(" — every such use is within the ±%s clock skew margin of the stop time: it may have come before it", c.SkewMargin.Round(time.Millisecond))
		}
		for _, u := range live {
			if len(r.Events) < maxCheckSample {
				r.Events = append(r.Events, u.ID)
			}
		}
		return r
	}
	if !c.EndAt.IsZero() {
		r.Status = CheckVerified
		r.Events = []string{c.EndID}
		if c.EndAt.After(contained) {
			r.LiveFor = c.EndAt.Sub(contained)
			r.Line = fmt.Sprintf("%s stayed live %s after the kill (%s %s)", name, r.LiveFor.Round(time.Second), c.EndHow, hms(c.EndAt))
			if u, ok := c.LastOK(); ok && u.Time.After(contained) {
				prep := "from"
				if c.Kind == detect.CapPlace {
					prep = "with"
				}
				r.Line += fmt.Sprintf("; last used %s %s %s", hms(u.Time), prep, u.From)
			}
		} else {
			r.Line = fmt.Sprintf("%s: %s %s, before the kill", name, c.EndHow, hms(c.EndAt))
		}
		return r
	}
	switch c.Kind {
	case detect.CapCredential:
		q, missing := UseSources(c.CredKind)
		if isKey(c) {
			q, missing = keyUseSources(c.CredKind)
		}
		switch {
		case isKey(c) && q == "":
			// a key whose service's log cordon reads none of: its own
			// tool calls showed no use, but a use from elsewhere would
			// show nowhere
			r.Status = CheckNoEvidence
			r.Line = fmt.Sprintf("%s: no source in this incident could show its use after %s (%s would); revoke it and record the revocation", name, Stamp(stop), missing)
			return r
		case c.Owner == "" && !isKey(c):
			// a secret file no issued credential is known to be in
			r.Status = CheckVerified
			r.Line = fmt.Sprintf("%s: no use can be tied to it; rotate what it holds", name)
			return r
		}
		if q == "" || !seen(q, stop) {
			r.Status = CheckNoEvidence
			r.Line = fmt.Sprintf("%s: no source in this incident could show its use after %s (%s would); revoke it and record the revocation", name, Stamp(stop), missing)
			return r
		}
		r.Status = CheckVerified
		r.Line = fmt.Sprintf("%s: not used after %s, and %s reported after that", name, Stamp(stop), missing)
	case detect.CapPlace:
		// a host is seen by the source its credentials are seen in: the
		// proxy for a proxy login, a cloud's audit log for its key
		q, missing := "+source:proxy", "the proxy"
		if c.CredKind != "" {
			if q, missing = UseSources(c.CredKind); q == "" {
				q, missing = "+source:audit", "an audit log of the service that accepts its credentials"
			}
			if q == "+source:proxy" {
				missing = "the proxy"
			}
		}
		if !seen(q, stop) {
			r.Status = CheckNoEvidence
			r.Line = fmt.Sprintf("%s: %s reported nothing after %s", name, missing, Stamp(stop))
			return r
		}
		r.Status = CheckVerified
		r.Line = fmt.Sprintf("%s: nothing from it after %s", name, Stamp(stop))
	case detect.CapSchedule, detect.CapPersisted:
		r.Status = CheckNotVerified
		r.Line = fmt.Sprintf("%s: nothing shows it removed", name)
		r.Events = c.Acquired
	default:
		r.Status = CheckNoEvidence
		r.Line = fmt.Sprintf("%s: nothing shows it ended; end it and record that in the journal", name)
		r.Events = c.Acquired
	}
	return r
}

// describeCap names a capability with what makes it the agent's.
func describeCap(c *detect.Capability) string {
	switch {
	case c.Kind == detect.CapCredential && c.Origin == detect.OriginAcquired && c.Owner != "":
		return fmt.Sprintf("%s (acquired from %s's session)", c.Value, c.Owner)
	case isKey(c):
		return fmt.Sprintf("%s %s (%s)", c.CredKind, c.Value, c.How)
	case c.Kind == detect.CapCredential && c.Owner == "":
		return "secret file " + c.Value
	case c.Kind == detect.CapPlace:
		return fmt.Sprintf("host %s (%s)", c.Value, c.How)
	case c.Kind == detect.CapJob:
		return fmt.Sprintf("job %s (%s)", c.Value, c.How)
	case c.Kind == detect.CapProcess:
		return `process "` + c.How + `"` // quoted as text: %q's escapes would be escaped again where it is shown
	}
	return c.Value
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

func fromList(us []detect.Use) string {
	var list []string
	for _, u := range us {
		if u.From != "" && !slices.Contains(list, u.From) {
			list = append(list, u.From)
		}
	}
	if len(list) == 0 {
		return "an unknown source"
	}
	if len(list) > 3 {
		return strings.Join(list[:3], ", ") + fmt.Sprintf(" and %d more", len(list)-3)
	}
	return strings.Join(list, ", ")
}

func hms(t time.Time) string { return t.UTC().Format(time.TimeOnly) }

// seenIn is a seenFunc over a store.
func seenIn(ctx context.Context, st evidence.Store) seenFunc {
	return func(text string, after time.Time) bool {
		q, err := evidence.Parse(text)
		if err != nil {
			return false
		}
		h, err := st.Search(ctx, evidence.Request{Query: q, Since: after, Limit: 1})
		return err == nil && h.Total > 0
	}
}

// worse is the more alarming of two answers: not verified, then no
// evidence, then verified.
func worse(a, b CheckStatus) CheckStatus {
	rank := map[CheckStatus]int{CheckVerified: 1, CheckNoEvidence: 2, CheckNotVerified: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// CheckStep runs a step's evidence check for the case and, for a step that
// closes a kill-switch layer, judges the subject's capabilities of that
// layer, granted and acquired, against their own stop times: the layer is
// verified only when the queries and every capability say so.
func CheckStep(ctx context.Context, st evidence.Store, step *playbook.Step, cs Case, caps *detect.Capabilities, now time.Time) (CheckResult, error) {
	res, err := RunCheck(ctx, st, step, cs.Vars(), now)
	if err != nil || step.Layer == "" || cs.ContainedAt.IsZero() || res.Status == CheckNotRun {
		return res, err
	}
	var all []detect.Capability
	for _, a := range cs.Subject {
		all = append(all, caps.For(a)...)
	}
	res.Capabilities = CheckCapabilities(step.Layer, all, cs.ContainedAt, seenIn(ctx, st))
	if res.Status == CheckNotVerified && endedUses(ctx, st, res, all, cs.Vars()) {
		res.Status, res.Events, res.First = CheckVerified, nil, time.Time{}
		res.Detail = fmt.Sprintf("%d events since %s, every one a refused use of a credential already ended", res.Matched, Stamp(res.After))
	}
	status := res.Status
	for _, c := range res.Capabilities {
		status = worse(status, c.Status)
	}
	var lines, late, events []string
	for _, c := range res.Capabilities {
		switch {
		case c.Status == status && status != CheckVerified:
			lines = append(lines, c.Line)
			events = append(events, c.Events...)
		case c.Status == CheckVerified && c.LiveFor > 0:
			late = append(late, c.Line)
		}
	}
	if status != res.Status {
		res.Detail = strings.Join(lines, "; ") + "; the session's own: " + res.Detail
		res.Events = append(events, res.Events...)
		if len(res.Events) > maxCheckSample {
			res.Events = res.Events[:maxCheckSample]
		}
		res.Status = status
	} else if len(lines) > 0 {
		res.Detail += "; " + strings.Join(lines, "; ")
	}
	if len(late) > 0 {
		res.Detail += "; " + strings.Join(late, "; ")
	}
	return res, nil
}

// endedUses reports whether every event the step's queries found after
// containment is a refused use of a credential the capability checks
// verified, ended by its revocation or by refusals from then on: a host
// outside every sandbox still trying a key deactivated in IAM is not the
// key alive. A use that was not refused keeps the layer open, as ever.
func endedUses(ctx context.Context, st evidence.Store, res CheckResult, caps []detect.Capability, vars playbook.Vars) bool {
	verified := map[string]bool{}
	for _, cc := range res.Capabilities {
		if cc.Kind == detect.CapCredential && cc.Status == CheckVerified {
			verified[cc.Agent+"\x00"+cc.Value] = true
		}
	}
	accounted := map[string]bool{}
	for i := range caps {
		c := &caps[i]
		if c.Kind != detect.CapCredential || c.EndAt.IsZero() || !verified[c.Agent+"\x00"+c.Value] {
			continue
		}
		for _, u := range c.Uses {
			if u.Refused && !u.Time.Before(c.EndAt) {
				accounted[u.ID] = true
			}
		}
	}
	if len(accounted) == 0 || res.Capped {
		return false
	}
	for _, text := range res.Queries {
		q, err := evidence.Parse(text)
		if err != nil {
			return false
		}
		hits, err := st.Search(ctx, evidence.Request{Query: q, Since: res.After, Limit: maxCheckEvents})
		if err != nil || hits.Total > uint64(len(hits.Events)) {
			return false
		}
		for _, ev := range hits.Events {
			if !reused(ev, vars) && !accounted[ev.ID] {
				return false
			}
		}
	}
	return true
}

// CheckCapability judges one capability against its stop time on the
// evidence in st: what the console's capability view shows.
func CheckCapability(ctx context.Context, st evidence.Store, c *detect.Capability, contained time.Time) CapabilityCheck {
	return checkCapability(c, contained, seenIn(ctx, st))
}

// keyUseSources are the sources that can show a use of a key found in
// tool output, by its kind: only those whose records name the key (or its
// hash) can tie a use to it — CloudTrail names an access key id, GitHub's
// audit log a token's hash; Google's logs name neither an API key nor an
// OAuth token.
func keyUseSources(kind string) (query, missing string) {
	switch kind {
	case "aws-access-key":
		return "+format:cloudtrail", "an AWS CloudTrail log"
	case "github-token":
		return "+format:github-audit", "a GitHub audit log"
	}
	return "", "the log of the service that accepts it"
}

// isKey says a credential is a key found in the agent's tool calls or
// outputs, named by its placeholder (see detect's key scan).
func isKey(c *detect.Capability) bool {
	return c.Kind == detect.CapCredential && c.Owner == "" && strings.HasPrefix(c.Value, "[SECRET-")
}
