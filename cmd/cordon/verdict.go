package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

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
		return incident.Verdict(a)
	}
}
