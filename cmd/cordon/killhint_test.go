package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// With no kill time recorded, verdict, check and eval run name the kill the
// harness's ledger recorded for the subject, and the command that would
// record it; they judge nothing at it. Recorded as the hint says, the
// Assessment is made at that kill and the hint is gone.
func TestVerdictNamesTheHarnessKill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "incident")
	if code, out, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "egress-probe-exfil")); code != 0 {
		t.Fatalf("ingest: exit %d %s %s", code, out, errOut)
	}
	hint := "the harness's ledger ended agent-7's last session, killed, at 2026-07-21 10:47:21Z"
	record := "done contain.stop --at 2026-07-21T10:47:21.002Z"
	code, out, _ := cordon("verdict", "--incident", dir)
	if code != exitCannotTell || !strings.Contains(out, "Not contained: no kill time is recorded") || !strings.Contains(out, hint) || !strings.Contains(out, record) {
		t.Fatalf("verdict with no kill recorded: exit %d\n%s", code, out)
	}
	if _, out, _ := cordon("verdict", "--incident", dir, "--as-of", "2026-07-21T10:30:00Z"); strings.Contains(out, "harness's ledger") {
		t.Errorf("verdict as of a time before the kill names it:\n%s", out)
	}
	if _, out, _ := cordon("check", "--incident", dir); !strings.Contains(out, hint) || !strings.Contains(out, record) {
		t.Errorf("check with no kill recorded:\n%s", out)
	}
	// eval run's stop controls cannot tell without a kill time: the hint
	// goes beside the scorecard, on stderr
	if code, out, errOut := cordon("eval", "run", "--incident", dir); code != 0 || !strings.Contains(errOut, hint) || !strings.Contains(errOut, record) ||
		strings.Contains(out, "harness's ledger") || !strings.Contains(out, "# Containment scorecard") {
		t.Errorf("eval run with no kill recorded: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// a subject of two agents, one its harness did not kill: the kill is
	// named, no time of the whole subject is offered
	if code, out, errOut := cordon("subject", "--incident", dir, "agent-7", "agent-3"); code != 0 {
		t.Fatalf("subject: exit %d %s %s", code, out, errOut)
	}
	if _, out, _ := cordon("verdict", "--incident", dir); !strings.Contains(out, hint) || strings.Contains(out, record) ||
		!strings.Contains(out, "the ledger records no kill of agent-3") {
		t.Errorf("verdict of agent-7 and agent-3:\n%s", out)
	}
	if code, out, errOut := cordon("subject", "--incident", dir, "agent-7"); code != 0 {
		t.Fatalf("subject: exit %d %s %s", code, out, errOut)
	}
	if code, out, errOut := cordon("step", "--incident", dir, "done", "contain.stop", "--at", "2026-07-21T10:47:21.002Z"); code != 0 {
		t.Fatalf("step: exit %d %s %s", code, out, errOut)
	}
	code, out, _ = cordon("verdict", "--incident", dir)
	if code != exitCannotTell || !strings.Contains(out, "Not contained (killed 2026-07-21 10:47:21Z): Cached credentials cannot tell") || strings.Contains(out, "harness's ledger") {
		t.Errorf("verdict at the recorded kill: exit %d\n%s", code, out)
	}
	if _, _, errOut := cordon("eval", "run", "--incident", dir); strings.Contains(errOut, "harness's ledger") {
		t.Errorf("eval run at the recorded kill still offers one:\n%s", errOut)
	}
}
