package incident_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

// The console's explanation of how an event was attributed (its EVENT
// view's ATTRIBUTION line) says what the stored attribution says, for
// every sample: the agent and the key kind, the candidates of an
// ambiguous event (a borrowed credential's use from outside too, which
// the session records alone do not show), or that none was found.
func TestAttributionPathSaysWhatIsStored(t *testing.T) {
	ctx := context.Background()
	ambiguous := 0
	for _, dir := range ledgerSamples(t) {
		name := filepath.Base(dir)
		ws, err := incident.Create(filepath.Join(t.TempDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ws.Ingest(ctx, []string{dir}, incident.IngestOptions{}); err != nil {
			t.Fatal(err)
		}
		st := ws.EvidenceStore()
		n := 0
		err = evidence.StoreSource{Store: st}.Each(ctx, evidence.Terms("source", evidence.SourceProxy, evidence.SourceSensor, evidence.SourceAudit), func(ev evidence.Event) error {
			n++
			if ev.AttributedVia != attribution.ViaAmbiguous && n%7 != 0 || ev.AttributedVia == attribution.ViaResponder || !attribution.Attributable(&ev) {
				return nil // every ambiguous event, a seventh of the others
			}
			var want string
			switch {
			case ev.AttributedVia == attribution.ViaAmbiguous:
				ambiguous++
				var cands []string
				for _, tag := range ev.Tags {
					if c, ok := strings.CutPrefix(tag, "candidate:"); ok {
						cands = append(cands, c)
					}
				}
				want = "→ ambiguous: " + strings.Join(cands, ", ")
			case ev.Agent != "":
				want = "→ " + ev.Agent + " via " + ev.AttributedVia
			default:
				want = "not attributed: no session binds"
			}
			got, err := attribution.Path(ctx, st, ev)
			if err != nil {
				return err
			}
			if !strings.Contains(got, want) {
				t.Errorf("%s: %s %s (%s via %s, %v): the path says %q, want %q", name, ev.ID, ev.Kind, ev.Agent, ev.AttributedVia, ev.Tags, got, want)
			}
			return nil
		})
		ws.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if ambiguous == 0 {
		t.Error("no sample has an ambiguous event: the test checks none")
	}
}
