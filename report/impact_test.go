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
	verified := 0
	for _, l := range r.Layers {
		if l.Status == incident.CheckVerified {
			verified++
		}
		if l.Step == "contain.credentials" && (l.Status != incident.CheckNoEvidence || !strings.Contains(l.Summary, "px-s228") || !strings.Contains(l.Summary, "aws-k-231: cannot tell")) {
			t.Errorf("credentials layer: %s", l.Summary)
		}
	}
	if want := strings.Contains(r.Summary.Containment, "verified"); !want || !strings.HasPrefix(r.Summary.Containment, strings.Split(r.Summary.Containment, " ")[0]) {
		t.Errorf("containment line %q", r.Summary.Containment)
	}
	if got := r.Summary.Containment; !strings.HasPrefix(got, itoa(verified)+" of ") {
		t.Errorf("containment line %q, but %d layers verified in the table", got, verified)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
