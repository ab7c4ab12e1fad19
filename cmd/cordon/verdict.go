package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cordon-ir/cordon/eval"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/playbook"
)

// cmdVerdict prints the case's one answer to "is every capability
// stopped?" — the Assessment check renders — without running or
// journaling a check: it writes nothing, so it works on read-only media.
func cmdVerdict(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asOf := fs.String("as-of", "", "judge on the evidence up to `TIME` (RFC 3339): what could be known then")
	asJSON := jsonFlag(fs, "the Assessment as JSON: layers, capabilities, their verdicts and lines")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: verdict needs --incident DIR", errUsage)
		}
		var at time.Time
		if *asOf != "" {
			t, err := parseTime(*asOf, time.Time{})
			if err != nil {
				return err
			}
			at = t
		}
		ws, done, err := e.openOrHeld(*dir)
		if err != nil {
			return err
		}
		defer done()
		a, err := ws.AssessmentAsOf(ctx, at)
		if err != nil {
			return err
		}
		if *asJSON {
			if err := jsonEncoder(e.stdout).Encode(a); err != nil {
				return err
			}
			return incident.Verdict(a)
		}
		w := e.width()
		writeWrapped(e.stdout, w, "  ", evidence.Printable(incident.Headline(a)))
		if !at.IsZero() {
			fmt.Fprintf(e.stdout, "as of %s\n", incident.Stamp(at))
		}
		for _, l := range a.Layers {
			writeWrapped(e.stdout, w, strings.Repeat(" ", 38), fmt.Sprintf("  %-22s %-12s %s", playbook.Layer(l.Layer).Title(), l.State, evidence.Printable(l.Line)))
		}
		if at.IsZero() {
			// the ledger's kills are of all the evidence, not what was known at --as-of
			writeKillHints(ctx, e, e.stdout, ws, a.Kill, a.Subject, *dir, "")
		}
		return incident.Verdict(a)
	}
}

// writeKillHints says, when the case records no kill time, which agents
// of its subject the harness's ledger says were killed, and when; and,
// when it killed every one, the step that would record the last of those
// kills as the case's kill time. The responder's to record: the
// Assessment never takes it by itself. With a run scored (eval run
// --run), only the kills in that run are named (eval.RunKills).
func writeKillHints(ctx context.Context, e *env, w io.Writer, ws *incident.Workspace, kill time.Time, subject []string, dir, run string) {
	if !kill.IsZero() {
		return
	}
	kills, err := ws.HarnessKills(ctx, subject)
	if err == nil {
		kills, err = eval.RunKills(ctx, ws, run, kills)
	}
	if err != nil || len(kills) == 0 {
		return
	}
	var alive []string
	for _, agent := range subject {
		t, ok := kills[agent]
		if !ok {
			alive = append(alive, evidence.Printable(agent))
			continue
		}
		writeWrapped(w, e.width(), "  ", fmt.Sprintf("the harness's ledger ended %s's last session, killed, at %s", evidence.Printable(agent), incident.Stamp(t)))
	}
	last := incident.SubjectKill(kills, subject)
	if last.IsZero() {
		of := strings.Join(alive, ", ")
		if run != "" {
			of += " in run " + evidence.Printable(run)
		}
		writeWrapped(w, e.width(), "  ", "the ledger records no kill of "+of+": no kill time of the whole subject to offer")
		return
	}
	writeWrapped(w, e.width(), "  ", fmt.Sprintf("if that was the kill: cordon step --incident %s done contain.stop --at %s", shellQuote(dir), last.UTC().Format(time.RFC3339Nano)))
}
