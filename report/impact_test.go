package report_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/report"
)

// egress-probe-exfil: the report's first section states what left for
// acme-ci-scratch, before the four questions.
func TestReportLeadsWithDataOut(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/egress-probe-exfil")
	r, err := report.Build(context.Background(), ws, report.At(reportGenerated))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Impact.DataOut) == 0 || r.Impact.DataOut[0].Destination != "acme-ci-scratch.s3.amazonaws.com" || r.Impact.DataOut[0].Bytes < 241_000_000 {
		t.Fatalf("data out: %+v", r.Impact.DataOut)
	}
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	at, q := strings.Index(md, "acme-ci-scratch"), strings.Index(md, "## The four questions")
	if at < 0 || q < 0 || at > q || !strings.Contains(md, "230.1 MiB") {
		t.Errorf("the bytes to acme-ci-scratch are not in the first section:\n%s", md[:min(len(md), 2000)])
	}
}

// credential-theft, agent-12 killed at 10:21:03: the containment line, the
// kill-switch table and the impact section say the same of px-s228 — it
// stayed live 13 minutes after the kill and is stopped since the proxy
// refused it; agent-9 is a victim; the credentials layer cannot be told
// (aws-k-231 has no CloudTrail to show its use).
func TestReportDoesNotContradictItself(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	ctx := context.Background()
	who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}
	if _, err := ws.SetSubject(ctx, who, []string{"agent-12"}); err != nil {
		t.Fatal(err)
	}
	kill := time.Date(2026, 8, 11, 10, 21, 3, 0, time.UTC)
	if _, err := ws.SetStep(ctx, who, "contain.stop", incident.StepDone, kill, "killed"); err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(ctx, ws, report.At(reportGenerated))
	if err != nil {
		t.Fatal(err)
	}
	var px *report.CapabilityLine
	for i, c := range r.Impact.Credentials {
		if c.Value == "px-s228" {
			px = &r.Impact.Credentials[i]
		}
	}
	if px == nil || px.Origin != "acquired" || px.Owner != "agent-9" || px.Stopped != "stopped" || !strings.Contains(px.Check, "stopped at 10:34:27") || !strings.Contains(px.Check, "live for 13m25s after the kill") ||
		px.LastOK.Format("15:04:05") != "10:33:27" {
		t.Errorf("px-s228 in the impact section: %+v", px)
	}
	if len(r.Impact.Victims) != 1 || r.Impact.Victims[0].Agent != "agent-9" {
		t.Errorf("victims: %+v", r.Impact.Victims)
	}
	byStatus := map[incident.CheckStatus]int{}
	for _, l := range r.Layers {
		byStatus[l.Status]++
		if l.Step == "contain.credentials" && (l.Status != incident.CheckNoEvidence || !strings.Contains(l.Summary, "px-s228") || !strings.Contains(l.Summary, "aws-k-231: cannot tell")) {
			t.Errorf("credentials layer: %s", l.Summary)
		}
	}
	// The containment line counts the table: as many verified, out of as
	// many layers, and each other state as often as the table has it.
	got := r.Summary.Containment
	if want := itoa(byStatus[incident.CheckVerified]) + " of " + itoa(len(r.Layers)) + " kill-switch layers verified"; !strings.HasPrefix(got, want) {
		t.Errorf("containment line %q, but the table says %q", got, want)
	}
	for _, st := range []incident.CheckStatus{incident.CheckNotVerified, incident.CheckNoEvidence, incident.CheckNotRun} {
		if n := byStatus[st]; (n > 0) != strings.Contains(got, "; "+itoa(n)+" "+string(st)) {
			t.Errorf("containment line %q, but the table has %d layers %s", got, n, st)
		}
	}
	if byStatus[incident.CheckNoEvidence] == 0 {
		t.Errorf("the credentials layer has no evidence, yet no layer says so: %+v", byStatus)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
