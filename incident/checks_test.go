package incident_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/playbook"
)

// pakKill is when the on-call engineer killed agent-21's session in the
// persistence-after-kill sample (its README); crond and a watcher keep
// acting from the sandbox until about 15:05.
var pakKill = time.Date(2026, 9, 2, 14, 21, 3, 0, time.UTC)

func TestRunCheckBeforeAndAfterContainment(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/persistence-after-kill")
	ctx := context.Background()
	step := &playbook.Step{ID: "contain.processes", Check: &playbook.Check{
		Title:    "No process of {{agent}} after containment",
		Expect:   playbook.ExpectNone,
		After:    playbook.VarContainedAt,
		Queries:  []string{"+agent:{{agent}} +source:sensor"},
		Coverage: []string{"source:sensor"},
	}}
	run := func(containedAt time.Time) incident.CheckResult {
		t.Helper()
		cs, err := incident.LoadCase(ctx, ws.EvidenceStore(), []string{"agent-21"}, containedAt)
		if err != nil {
			t.Fatal(err)
		}
		r, err := incident.RunCheck(ctx, ws.EvidenceStore(), step, cs.Vars(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	r := run(time.Time{})
	if r.Status != incident.CheckNotRun || !strings.Contains(r.Detail, "needs contained_at") {
		t.Errorf("without a containment time: %+v", r)
	}

	r = run(pakKill)
	if r.Status != incident.CheckNotVerified || r.Matched == 0 || r.First.Before(pakKill) || len(r.Events) == 0 {
		t.Errorf("at the kill, the watcher and crond keep going: %+v", r)
	}
	if r.Title != "No process of agent-21 after containment" {
		t.Errorf("title %q", r.Title)
	}
	if !strings.Contains(r.Summary(), "events since 2026-09-02 14:21:03Z") {
		t.Errorf("summary %q", r.Summary())
	}

	// Once the responder removed them, other sandboxes still report: the
	// sensor was watching, and saw nothing more of agent-21.
	r = run(time.Date(2026, 9, 2, 15, 10, 0, 0, time.UTC))
	if r.Status != incident.CheckVerified || r.Matched != 0 || r.Coverage == 0 {
		t.Errorf("after the cleanup: %+v", r)
	}

	// After the last sensor event nothing could have been seen: that is no
	// evidence, not a pass.
	r = run(time.Date(2026, 9, 3, 0, 0, 0, 0, time.UTC))
	if r.Status != incident.CheckNoEvidence {
		t.Errorf("after the evidence ends: %+v", r)
	}

	// A check on a key the subject's sessions never had cannot run.
	step.Check.Queries = []string{"pod:{{pod}} +agent:nobody"}
	cs, _ := incident.LoadCase(ctx, ws.EvidenceStore(), []string{"no-such-agent"}, pakKill)
	r, err := incident.RunCheck(ctx, ws.EvidenceStore(), step, cs.Vars(), time.Now())
	if err != nil || r.Status != incident.CheckNotRun || !strings.Contains(r.Detail, "needs pod") {
		t.Errorf("unknown key: %+v %v", r, err)
	}
}

// TestKillSwitchLayers walks the built-in playbook's Contain phase on the
// persistence-after-kill sample through the journal: naming the subject,
// recording the stop, running the checks. At the kill the agent's loop is
// stopped but crond, the watcher and its credentials are not; once the
// responder removed them every layer verifies.
func TestKillSwitchLayers(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/persistence-after-kill")
	ctx := context.Background()
	who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}
	if _, err := ws.SetSubject(ctx, who, []string{"agent-21"}); err != nil {
		t.Fatal(err)
	}
	layers := []string{"contain.queued-jobs", "contain.tool-calls", "contain.credentials", "contain.processes", "contain.external", "contain.schedules", "contain.state"}
	check := func(at time.Time) map[string]incident.CheckResult {
		t.Helper()
		if _, err := ws.SetStep(ctx, who, "contain.stop", incident.StepDone, at, "session killed"); err != nil {
			t.Fatal(err)
		}
		results, err := ws.Check(ctx, who, layers...)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]incident.CheckResult{}
		for _, r := range results {
			out[r.Step] = r
		}
		return out
	}

	// At the kill: the loop stopped (its tool calls ended with the session,
	// a second later); its credential was used after it and nothing its
	// issuer recorded ended it; its watcher acted until the sensor saw it
	// exit at 15:04:48; the crontab and the unit only a person says were
	// removed; nothing outside the sandbox was held.
	atKill := check(pakKill)
	want := map[string]incident.CheckStatus{
		"contain.queued-jobs": incident.CheckVerified, "contain.tool-calls": incident.CheckVerified, "contain.external": incident.CheckVerified,
		"contain.credentials": incident.CheckNotVerified, "contain.processes": incident.CheckVerified,
		"contain.schedules": incident.CheckNoEvidence, "contain.state": incident.CheckNoEvidence,
	}
	for id, w := range want {
		if r := atKill[id]; r.Status != w {
			t.Errorf("at the kill %s: %s, want %s", id, r.Summary(), w)
		}
	}
	if r := atKill["contain.credentials"]; !strings.Contains(r.Detail, "px-s305: live") || !strings.Contains(r.Detail, "last 15:05:06 from 10.0.4.14") {
		t.Errorf("at the kill, credentials: %s", r.Detail)
	}
	if r := atKill["contain.processes"]; !strings.HasPrefix(r.Summary(), "stopped at 2026-09-02 15:04:48Z, live after the kill") ||
		!strings.Contains(r.Detail, "sync-keeper.py --watch\": stopped at 15:04:48 (exited, the runtime sensor (tetragon)), live for 43m45s after the kill") {
		t.Errorf("at the kill, processes: %s", r.Detail)
	}

	// Killed at 15:08:42, after the cleanup: nothing was used after it
	// and the watcher had exited, but the crontab, the unit, the data
	// token and the webhook have only a person's word for their end, and
	// no source could show the token's or the webhook's use: cannot tell.
	cleaned := check(time.Date(2026, 9, 2, 15, 8, 42, 0, time.UTC))
	want = map[string]incident.CheckStatus{
		"contain.queued-jobs": incident.CheckVerified, "contain.tool-calls": incident.CheckVerified, "contain.external": incident.CheckVerified,
		"contain.credentials": incident.CheckNoEvidence, "contain.processes": incident.CheckVerified,
		"contain.schedules": incident.CheckNoEvidence, "contain.state": incident.CheckNoEvidence,
	}
	for id, w := range want {
		if r := cleaned[id]; r.Status != w {
			t.Errorf("after the cleanup %s: %s, want %s", id, r.Summary(), w)
		}
	}
	if r := cleaned["contain.credentials"]; !strings.Contains(r.Detail, "tok-data-305: cannot tell") || strings.Contains(r.Detail, "px-s305: live") {
		t.Errorf("after the cleanup, credentials: %s", r.Detail)
	}

	// The journal holds it all, and the state folds back from it.
	s, err := ws.State()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Times["contained_at"]; !got.Equal(time.Date(2026, 9, 2, 15, 8, 42, 0, time.UTC)) {
		t.Errorf("contained_at from the journal: %v", got)
	}
	if st := s.Step("contain.schedules"); st.Check == nil || st.Check.Status != incident.CheckNoEvidence {
		t.Errorf("last journaled check of contain.schedules: %+v", st.Check)
	}
	if st := s.Step("contain.stop"); st.Status != incident.StepDone || st.By.Name != "oncall" {
		t.Errorf("contain.stop state: %+v", st)
	}
	if v, err := ws.VerifyJournal(); err != nil || !v.OK() {
		t.Errorf("journal: %+v %v", v, err)
	}
	if n := len(incidenttest.Casework(t, ws)); n != 1+2*(1+len(layers)) {
		t.Errorf("journal: %d entries besides the evidence received, want %d", n, 1+2*(1+len(layers)))
	}
}

// TestCoverageWithUnknownKeyIsNoEvidence: when every coverage query names a
// key the case lacks, nothing could have shown the answer: "no evidence",
// never "verified".
func TestCoverageWithUnknownKeyIsNoEvidence(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/persistence-after-kill")
	ctx := context.Background()
	cs, err := incident.LoadCase(ctx, ws.EvidenceStore(), []string{"agent-21"}, pakKill)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Vars()["pod"]) != 0 {
		t.Skip("the sample's sessions now name a pod; pick another missing key")
	}
	step := &playbook.Step{ID: "x", Check: &playbook.Check{
		Expect: playbook.ExpectNone, After: playbook.VarContainedAt,
		Queries:  []string{"+agent:{{agent}} +kind:nosuchkind"},
		Coverage: []string{"+pod:{{pod}} +source:sensor"},
	}}
	r, err := incident.RunCheck(ctx, ws.EvidenceStore(), step, cs.Vars(), time.Now())
	if err != nil || r.Status != incident.CheckNoEvidence {
		t.Errorf("%+v %v", r, err)
	}
}

// TestCheckIgnoresKeysReusedByOthers: in egress-probe-exfil agent-7's IP
// 10.0.3.7 goes to agent-3's next sandbox at 11:05:12; that traffic is
// agent-3's and must not keep agent-7's external-sessions layer open.
func TestCheckIgnoresKeysReusedByOthers(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/egress-probe-exfil")
	ctx := context.Background()
	kill := time.Date(2026, 7, 21, 10, 47, 21, 2_000_000, time.UTC)
	cs, err := incident.LoadCase(ctx, ws.EvidenceStore(), []string{"agent-7"}, kill.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	step := &playbook.Step{ID: "contain.external", Check: &playbook.Check{
		Expect: playbook.ExpectNone, After: playbook.VarContainedAt,
		Queries:  []string{"+source:proxy +src_ip:{{ip}}", "+kind:net_connect +src_ip:{{ip}}"},
		Coverage: []string{"+source:proxy"},
	}}
	r, err := incident.RunCheck(ctx, ws.EvidenceStore(), step, cs.Vars(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range r.Events {
		ev, _ := ws.EvidenceStore().Get(ctx, id)
		if ev.Agent != "" && ev.Agent != "agent-7" {
			t.Errorf("counted %s's event %s (%s via %s)", ev.Agent, id, ev.Time.Format(time.TimeOnly), ev.AttributedVia)
		}
	}
	if r.Status != incident.CheckVerified {
		t.Errorf("external sessions after the kill: %s", r.Summary())
	}
}
