package incident_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
)

// The offline summary never flags its own statements as unsupported: what
// it says of the findings and capabilities it restates is in the packet
// (their lines), and a detector's name (credential-misuse) is not a
// credential. Every bundled sample.
func TestOfflineSummaryIsSupportedByItsPacket(t *testing.T) {
	for _, sample := range incidenttest.Samples(t) {
		t.Run(filepath.Base(sample), func(t *testing.T) {
			ws := incidenttest.New(t, sample)
			res, err := ws.Ask(context.Background(), journal.Actor{Name: "oncall", Via: journal.ViaCLI}, assist.DefaultConfig(), incident.AskRequest{Task: assist.TaskSummarize})
			if err != nil || len(res.Answer.Claims) == 0 {
				t.Fatal(err)
			}
			for _, c := range res.Answer.Claims {
				if c.Support != nil && len(c.Support.Missing) > 0 {
					t.Errorf("%q: %v", c.Text, c.Support.Missing)
				}
			}
		})
	}
}
