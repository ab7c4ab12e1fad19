package agents

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui/common"
)

// The console's agent profile says of each of the subject's capabilities
// what the case's Assessment says, in every sample that has a kill: live
// rows are marked live and read LIVE, stopped rows read stopped, and
// cannot-tell rows say so.
func TestProfileRendersTheAssessment(t *testing.T) {
	for _, tc := range []struct {
		sample, agent string
		kill          time.Time
	}{
		{"credential-theft", "agent-12", time.Date(2026, 8, 11, 10, 21, 3, 0, time.UTC)},
		{"persistence-after-kill", "agent-21", time.Date(2026, 9, 2, 14, 21, 3, 0, time.UTC)},
		{"cloud-key-after-kill", "agent-52", time.Date(2026, 10, 14, 10, 54, 2, 0, time.UTC)},
	} {
		t.Run(tc.sample, func(t *testing.T) {
			ws := incidenttest.New(t, filepath.Join("..", "..", "sample-incidents", tc.sample))
			ctx := context.Background()
			who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}
			if _, err := ws.SetSubject(ctx, who, []string{tc.agent}); err != nil {
				t.Fatal(err)
			}
			if _, err := ws.SetStep(ctx, who, "contain.stop", incident.StepDone, tc.kill, ""); err != nil {
				t.Fatal(err)
			}
			a, err := ws.Assessment(ctx)
			if err != nil {
				t.Fatal(err)
			}
			p, err := loadProfile(ctx, ws, tc.agent)
			if err != nil {
				t.Fatal(err)
			}
			rows := p.rows(common.Clock{})
			judged := 0
			for i := range p.caps {
				v, ok := a.Of(&p.caps[i])
				if !ok {
					continue
				}
				judged++
				var r *row
				for j := range rows {
					if rows[j].label == string(p.caps[i].Kind)+" "+p.caps[i].Value {
						r = &rows[j]
					}
				}
				if r == nil {
					t.Errorf("no row for %s %s", p.caps[i].Kind, p.caps[i].Value)
					continue
				}
				want := map[capability.State]string{capability.Live: "LIVE", capability.Stopped: "topped", capability.CannotTell: "Cannot tell"}[v.State]
				if r.live != (v.State == capability.Live) || !strings.Contains(r.text, want) {
					t.Errorf("%s %s: row %q (live %v); the Assessment: %s", p.caps[i].Kind, p.caps[i].Value, r.text, r.live, v.State)
				}
			}
			if judged == 0 {
				t.Fatal("the Assessment judges none of the profile's capabilities")
			}
		})
	}
}
