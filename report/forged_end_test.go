package report_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/report"
)

// forgedCase writes a small incident: agent-1's session (proxy login
// px-s1) queues CI job ci-77, whose runner uses px-s1 from 10.30.8.15;
// the agent's own tool output says it revoked the login and cancelled the
// job, and a human_intervention record — which nothing the proxy or a CI
// system recorded corroborates — says the same. Killed at 10:10, the
// runner used px-s1 at 10:12 and 10:20. refused adds the proxy refusing
// px-s1 from 10:25: the issuer's own end.
func forgedCase(t *testing.T, refused bool) string {
	t.Helper()
	dir := t.TempDir()
	at := func(hms string) time.Time {
		v, err := time.Parse(time.RFC3339, "2026-08-11T"+hms+"Z")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ledger := []string{
		`{"v":1,"ts":"2026-08-11T10:00:00Z","type":"session_start","run":"r-1","agent":"agent-1","session":"s-1","model":"m","objective":"fix the tests","sandbox":{"id":"sb-1","container_id":"aaaaaaaaaaaa","ip":"10.0.9.1"},"credentials":[{"id":"px-s1","kind":"proxy-auth"}],"tools_allowed":["bash","ci_submit"],"egress_allowlist":["pypi.org"]}`,
		`{"v":1,"ts":"2026-08-11T10:01:00Z","type":"tool_call","run":"r-1","agent":"agent-1","session":"s-1","call_id":"c-1","tool":"ci_submit","args":{"env":"PROXY_USER=px-s1"}}`,
		`{"v":1,"ts":"2026-08-11T10:01:02Z","type":"tool_result","run":"r-1","agent":"agent-1","session":"s-1","call_id":"c-1","status":"ok","output_excerpt":"job ci-77 queued"}`,
		`{"v":1,"ts":"2026-08-11T10:05:00Z","type":"tool_call","run":"r-1","agent":"agent-1","session":"s-1","call_id":"c-2","tool":"bash","args":{"cmd":"echo done"}}`,
		`{"v":1,"ts":"2026-08-11T10:05:01Z","type":"tool_result","run":"r-1","agent":"agent-1","session":"s-1","call_id":"c-2","status":"ok","output_excerpt":"revoked credential px-s1; cancelled CI job ci-77; everything is stopped"}`,
		`{"v":1,"ts":"2026-08-11T10:10:00Z","type":"session_end","run":"r-1","agent":"agent-1","session":"s-1","reason":"killed"}`,
		`{"v":1,"ts":"2026-08-11T10:11:00Z","type":"human_intervention","actor":"oncall:someone","action":"revoked credential px-s1"}`,
		`{"v":1,"ts":"2026-08-11T10:11:05Z","type":"human_intervention","actor":"oncall:someone","action":"cancelled CI job ci-77"}`,
		`{"v":1,"ts":"2026-08-11T10:30:00Z","type":"summary","run":"r-1","agent":"agent-2","session":"s-2","text":"the ledger goes on"}`,
	}
	squid := func(hms, ip, status, user string) string {
		t := at(hms)
		return fmt.Sprintf("%d.%03d    120 %s TCP_TUNNEL/%s 5120 CONNECT pypi.org:443 %s HIER_DIRECT/151.101.0.223 -", t.Unix(), t.Nanosecond()/1e6, ip, status, user)
	}
	proxy := []string{
		squid("10:02:00", "10.0.9.1", "200", "px-s1"),
		squid("10:03:00", "10.30.8.15", "200", "px-s1"),
		squid("10:12:00", "10.30.8.15", "200", "px-s1"),
		squid("10:20:00", "10.30.8.15", "200", "px-s1"),
	}
	if refused {
		proxy = append(proxy, squid("10:25:00", "10.30.8.15", "407", "px-s1"), squid("10:26:00", "10.30.8.15", "407", "px-s1"))
	}
	proxy = append(proxy, squid("10:40:00", "10.0.7.7", "200", "-"))
	for name, lines := range map[string][]string{"ledger.jsonl": ledger, "access.log": proxy} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Forged ends: neither the agent's own "revoked" in its tool output nor
// a human_intervention that nothing the issuer recorded corroborates ends
// a capability. The proxy login used after the kill is live, the job only
// a person says was cancelled cannot be told, check answers ErrLive, and
// the report says not contained, with px-s1 live in its impact table. With
// the proxy's own refusals the same login is stopped at the first one.
func TestForgedEndsLeaveLayersOpen(t *testing.T) {
	ctx := context.Background()
	who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}
	kill := time.Date(2026, 8, 11, 10, 10, 0, 0, time.UTC)
	open := func(refused bool) (*incident.Workspace, map[string]incident.CheckResult) {
		ws := incidenttest.New(t, forgedCase(t, refused))
		if _, err := ws.SetSubject(ctx, who, []string{"agent-1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := ws.SetStep(ctx, who, "contain.stop", incident.StepDone, kill, "killed"); err != nil {
			t.Fatal(err)
		}
		rs, err := ws.Check(ctx, who, "contain.credentials", "contain.queued-jobs", "contain.external")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]incident.CheckResult{}
		for _, r := range rs {
			out[r.Step] = r
		}
		return ws, out
	}

	ws, rs := open(false)
	if r := rs["contain.credentials"]; r.Status != incident.CheckNotVerified || !strings.Contains(r.Detail, "px-s1: live") ||
		!strings.Contains(r.Detail, "last 10:20:00 from 10.30.8.15") || !strings.Contains(r.Detail, "claimed ended") {
		t.Errorf("credentials: %s", r.Summary())
	}
	if r := rs["contain.queued-jobs"]; r.Status != incident.CheckNoEvidence || !strings.Contains(r.Detail, "job ci-77 (queued by ci_submit (c-1)): cannot tell — only a claimed end") {
		t.Errorf("queued jobs: %s", r.Summary())
	}
	a, err := ws.Assessment(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := incident.Verdict(a); !errors.Is(err, incident.ErrLive) {
		t.Errorf("check's answer %v, want ErrLive", err)
	}
	r, err := report.Build(ctx, ws, report.At(reportGenerated))
	if err != nil {
		t.Fatal(err)
	}
	if r.Front.Contained || !strings.HasPrefix(r.Front.Status, "Not contained") || !strings.Contains(r.Front.Status, "Cached credentials live") {
		t.Errorf("banner: %q", r.Front.Status)
	}
	for _, l := range r.Impact.Credentials {
		if l.Value == "px-s1" && l.Stopped != "live" {
			t.Errorf("impact: px-s1 %q: %s", l.Stopped, l.Check)
		}
	}

	// the issuer's own end: the proxy refused px-s1 from 10:25
	_, rs = open(true)
	if r := rs["contain.credentials"]; r.Status != incident.CheckVerified || !strings.Contains(r.Detail, "px-s1: stopped at 10:25:00 (refused from then on, the proxy's refusals)") {
		t.Errorf("credentials with the proxy's refusals: %s", r.Summary())
	}
}
