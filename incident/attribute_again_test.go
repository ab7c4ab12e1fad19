package incident_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
)

// Attributing a settled workspace again changes no event, from its start
// or from any time within it: what the ingest learnt as it went (a
// credential seen in another agent's sandbox or named in its tool call,
// which makes the credential's later uses from outside ambiguous) is
// learnt again by the re-attribution, before and after the time it
// starts from.
func TestAttributingAgainChangesNothing(t *testing.T) {
	ctx := context.Background()
	for _, dir := range ledgerSamples(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			ws, err := incident.Create(filepath.Join(t.TempDir(), "incident"))
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			if _, err := ws.Ingest(ctx, []string{dir}, incident.IngestOptions{}); err != nil {
				t.Fatal(err)
			}
			c := ws.EvidenceStore().Counts()
			if c.Total == 0 {
				t.Fatal("nothing ingested")
			}
			before := c.Fields["attributed_via"]
			for _, since := range []time.Time{{}, c.First.Add(c.Last.Sub(c.First) / 2), c.Last} {
				r, err := ws.Attribute(ctx, since)
				if err != nil {
					t.Fatal(err)
				}
				if r.Changed != 0 {
					t.Errorf("attributing again from %v changed %d of %d events: %v, then %v",
						since, r.Changed, r.Checked, before, ws.EvidenceStore().Counts().Fields["attributed_via"])
				}
			}
		})
	}
}
