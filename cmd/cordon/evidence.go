package main

import (
	"fmt"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/spf13/cobra"
)

const evidenceArgs = "verify --incident DIR [--json]"

// cmdEvidence checks the files received against their journaled digests.
// It reads only the journal and the files, so it runs beside an ingest.
func cmdEvidence(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "one JSON object per file")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if *dir == "" || len(pos) != 1 || pos[0] != "verify" {
			fs.Usage()
			return fmt.Errorf("%w: evidence verify --incident DIR", errUsage)
		}
		ws, err := incident.OpenCase(*dir)
		if err != nil {
			return err
		}
		checks, verr := ws.VerifyEvidence()
		if verr != nil && len(checks) == 0 {
			return verr
		}
		if len(checks) == 0 {
			fmt.Fprintln(e.stderr, "the journal records no evidence received (ingested before cordon journaled intake?)")
			return nil
		}
		counts := map[incident.EvidenceStatus]int{}
		for _, c := range checks {
			counts[c.Status]++
			if *asJSON {
				if err := jsonEncoder(e.stdout).Encode(c); err != nil {
					return err
				}
				continue
			}
			name := c.Receipt.Resolved
			if c.Receipt.Stdin {
				name = "stdin"
			}
			w := e.width()
			writeWrapped(e.stdout, w, "         ", fmt.Sprintf("%-8s %s (journal #%d)", c.Status, evidence.Printable(name), c.Seq))
			writeWrapped(e.stdout, w, "         ", "         "+evidence.Printable(c.Detail))
		}
		if !*asJSON {
			files := len(checks) - counts[incident.EvidenceReplaced]
			sum := fmt.Sprintf("%d files: %d match, %d grew, %d changed, %d gone, %d not checkable", files,
				counts[incident.EvidenceMatch], counts[incident.EvidenceGrew], counts[incident.EvidenceChanged], counts[incident.EvidenceGone], counts[incident.EvidenceUnknown])
			if n := counts[incident.EvidenceReplaced]; n > 0 {
				sum += fmt.Sprintf("; %d earlier receipts replaced (their bytes are not at the path now)", n)
			}
			fmt.Fprintln(e.stdout)
			writeWrapped(e.stdout, e.width(), "  ", sum)
		}
		return verr
	}
}
