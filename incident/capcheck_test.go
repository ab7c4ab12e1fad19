package incident_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
)

// ctKill is when the on-call engineer killed agent-12 in the
// credential-theft sample; its CI job kept using agent-9's px-s228 from
// 10.30.8.15 until the revocation at 10:34:12.
var ctKill = time.Date(2026, 8, 11, 10, 21, 3, 0, time.UTC)

// cutSample copies a sample incident's evidence, keeping only the records
// before cut: the incident as a responder sees it at that moment.
func cutSample(t *testing.T, name string, cut time.Time) string {
	t.Helper()
	src := filepath.Join("..", "sample-incidents", name)
	dst := t.TempDir()
	isoRe := regexp.MustCompile(`"(?:ts|time)":"([^"]+)"`)
	for _, rel := range []string{"ledger.jsonl", "proxy/access.log", "sensor/falco.jsonl", "sensor/tetragon.jsonl"} {
		in, err := os.Open(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, rel))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			var at time.Time
			if m := isoRe.FindStringSubmatch(line); m != nil {
				at, _ = time.Parse(time.RFC3339Nano, m[1])
			} else if f := strings.Fields(line); len(f) > 0 {
				sec, _ := strconv.ParseFloat(f[0], 64)
				at = time.Unix(0, int64(sec*1e9))
			}
			if at.IsZero() {
				t.Fatalf("%s: no time in %q", rel, line[:min(len(line), 80)])
			}
			if at.Before(cut) {
				out.WriteString(line + "\n")
			}
		}
		in.Close()
		out.Close()
	}
	return dst
}

func checkAfterKill(t *testing.T, dir string, steps ...string) map[string]incident.CheckResult {
	t.Helper()
	return checkAfter(t, dir, "agent-12", ctKill, steps...)
}

func checkAfter(t *testing.T, dir, subject string, kill time.Time, steps ...string) map[string]incident.CheckResult {
	t.Helper()
	ws := incidenttest.New(t, dir)
	ctx := context.Background()
	who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}
	if _, err := ws.SetSubject(ctx, who, []string{subject}); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.SetStep(ctx, who, "contain.stop", incident.StepDone, kill, "killed"); err != nil {
		t.Fatal(err)
	}
	rs, err := ws.Check(ctx, who, steps...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]incident.CheckResult{}
	for _, r := range rs {
		out[r.Step] = r
	}
	return out
}

// Regression: with agent-12 killed at 10:21:03 and the evidence cut at
// 10:30, every check said verified although agent-9's px-s228, which
// agent-12 had read and put in a CI job, was still used from the CI runner.
func TestBorrowedCredentialKeepsLayersOpen(t *testing.T) {
	cut := time.Date(2026, 8, 11, 10, 30, 0, 0, time.UTC)
	rs := checkAfterKill(t, cutSample(t, "credential-theft", cut), "contain.credentials", "contain.external")
	for _, step := range []string{"contain.credentials", "contain.external"} {
		r := rs[step]
		if r.Status != incident.CheckNotVerified {
			t.Errorf("%s: %s, want not verified", step, r.Summary())
			continue
		}
		for _, want := range []string{"px-s228", "10.30.8.15", "agent-9"} {
			if !strings.Contains(r.Detail, want) {
				t.Errorf("%s: %q does not name %s", step, r.Detail, want)
			}
		}
		if len(r.Events) == 0 {
			t.Errorf("%s: no event ids", step)
		}
	}
}

// On the whole evidence the proxy refused px-s228 from 10:34:27 (a
// person's record says it was revoked at 10:34:12, which only the proxy's
// refusals corroborate): the external-sessions layer is stopped then, live
// after the kill until then, never plainly verified. The credentials layer
// cannot be told: aws-k-231's revocation is a person's word, and no
// CloudTrail log could show its use; the CI job's cancellation likewise.
func TestBorrowedCredentialStopsAtTheProxysRefusal(t *testing.T) {
	rs := checkAfterKill(t, "../sample-incidents/credential-theft", "contain.credentials", "contain.external", "contain.queued-jobs")
	if r := rs["contain.external"]; r.Status != incident.CheckVerified || !strings.HasPrefix(r.Summary(), "stopped at 2026-08-11 10:34:27Z, live after the kill") ||
		!strings.Contains(r.Detail, "10.30.8.15") || !strings.Contains(r.Detail, "last use 10:33:27") {
		t.Errorf("external: %s", r.Summary())
	}
	if r := rs["contain.credentials"]; r.Status != incident.CheckNoEvidence || !strings.Contains(r.Detail, "aws-k-231: cannot tell") ||
		!strings.Contains(r.Detail, "an AWS CloudTrail log") || !strings.Contains(r.Detail, "px-s228 (acquired from agent-9's session): stopped at 10:34:27") {
		t.Errorf("credentials: %s", r.Summary())
	}
	if r := rs["contain.queued-jobs"]; r.Status != incident.CheckNoEvidence || !strings.Contains(r.Detail, "ci-88213") || !strings.Contains(r.Detail, "only a claimed end") {
		t.Errorf("queued jobs: %s", r.Summary())
	}
}

// The assistant's packet carries the capability summary, so the model sees
// that agent-12 holds agent-9's px-s228 and the host it was used from.
func TestPacketCarriesCapabilities(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	p, err := ws.AskPacket(context.Background(), assist.DefaultConfig(), incident.AskRequest{Task: assist.TaskSummarize})
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, l := range p.CapabilityLines {
		if strings.Contains(l, "agent=agent-12") && (strings.Contains(l, "credential acquired px-s228") && strings.Contains(l, "owner=agent-9") ||
			strings.Contains(l, "place acquired 10.30.8.15")) {
			found = append(found, l)
		}
	}
	if len(found) != 2 {
		t.Errorf("capability lines for px-s228 and 10.30.8.15: %q of %q", found, p.CapabilityLines)
	}
}

// revoke-credentials revokes the borrowed px-s228 too, and the
// confirmation says where each value came from.
func TestActionRevokesAcquiredCredentials(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	ctx := context.Background()
	s, err := ws.State()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := ws.Case(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	c := &incident.Config{Actions: map[string]incident.ActionConfig{"revoke": {Run: "revoke-cred {{credential}}"}}}
	p, err := c.PlanAction("revoke", cs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, argv := range p.Commands {
		got = append(got, argv[1])
	}
	if strings.Join(got, " ") != "px-s231 aws-k-231 px-s228" {
		t.Errorf("revokes %v, want agent-12's own two and agent-9's px-s228", got)
	}
	for _, v := range p.Values {
		if v.Value == "px-s228" && !strings.Contains(v.From, "acquired from agent-9") ||
			v.Value == "px-s231" && !strings.Contains(v.From, "session_start of s-231") {
			t.Errorf("%s from %q", v.Value, v.From)
		}
	}
}

// shared-volume-token: agent-40 read agent-41's px-s512 with read_file from
// the shared volume and handed it to a bench job on 10.30.12.7. Cut at
// 11:05, after the kill at 10:44:31 and before the revocation at 11:07:40,
// both layers are live; on the whole evidence the proxy refused px-s512
// from 11:08:24: the external layer stopped then, and the credentials
// layer cannot be told (aws-k-509's revocation is a person's word, and no
// CloudTrail log could show its use).
func TestSharedVolumeCredentialAfterKill(t *testing.T) {
	kill := time.Date(2026, 9, 23, 10, 44, 31, 200_000_000, time.UTC)
	cut := time.Date(2026, 9, 23, 11, 5, 0, 0, time.UTC)
	steps := []string{"contain.credentials", "contain.external"}
	open := checkAfter(t, cutSample(t, "shared-volume-token", cut), "agent-40", kill, steps...)
	full := checkAfter(t, "../sample-incidents/shared-volume-token", "agent-40", kill, steps...)
	for _, step := range steps {
		if r := open[step]; r.Status != incident.CheckNotVerified || !strings.Contains(r.Detail, "px-s512") || !strings.Contains(r.Detail, "10.30.12.7") {
			t.Errorf("cut at 11:05, %s: %s", step, r.Summary())
		}
	}
	if r := full["contain.external"]; !strings.HasPrefix(r.Summary(), "stopped at 2026-09-23 11:08:24Z, live after the kill") {
		t.Errorf("whole evidence, external: %s", r.Summary())
	}
	if r := full["contain.credentials"]; r.Status != incident.CheckNoEvidence || !strings.Contains(r.Detail, "aws-k-509: cannot tell") {
		t.Errorf("whole evidence, credentials: %s", r.Summary())
	}
}

// egress-probe-exfil: Squid logged agent-7's last upload with px-s19 at its
// end, 10:47:21, after the 10:47:20.61 kill — but it had run 331.6 s, from
// 10:41:49: in flight at the kill, not a use after it.
func TestUploadInFlightAtTheKill(t *testing.T) {
	kill := time.Date(2026, 7, 21, 10, 47, 20, 610_000_000, time.UTC)
	rs := checkAfter(t, "../sample-incidents/egress-probe-exfil", "agent-7", kill, "contain.credentials")
	r := rs["contain.credentials"]
	if strings.Contains(r.Detail, "px-s19: live") || !strings.Contains(r.Detail, "px-s19: not used after") ||
		!strings.Contains(r.Detail, "a use in flight at the kill (began 10:41:49") {
		t.Errorf("credentials: %s", r.Summary())
	}
}
