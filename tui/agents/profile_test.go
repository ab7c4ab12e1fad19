package agents

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui/common"
)

// The profile of agent-12 in credential-theft, killed at 10:21:03: its one
// session ended killed, agent-9's px-s228 acquired and stopped by the
// revocation, the CI runner a place it acquired; each line filters the
// timeline to its evidence.
func TestProfileShowsAcquiredCapabilities(t *testing.T) {
	ws := incidenttest.New(t, "../../sample-incidents/credential-theft")
	ctx := context.Background()
	who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}
	if _, err := ws.SetStep(ctx, who, "contain.stop", incident.StepDone, time.Date(2026, 8, 11, 10, 21, 3, 0, time.UTC), ""); err != nil {
		t.Fatal(err)
	}
	p, err := loadProfile(ctx, ws, "agent-12")
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	var pxFilter evidence.Query
	for _, r := range p.rows(common.Clock{}) {
		text = append(text, r.text)
		if strings.Contains(r.text, "px-s228 — ") {
			pxFilter = r.filter
		}
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"session s-231", "killed", "acquired from agent-9", "px-s228 — stopped at 10:34:27.705, live 13m25s after the kill", "10.30.8.15", "ci-88213",
		"graph: sessions", "└─ px-s228 [acquired from agent-9]", "[used from]"} {
		if !strings.Contains(all, want) {
			t.Errorf("profile lacks %q:\n%s", want, all)
		}
	}
	if pxFilter.Op() != evidence.OpIDs {
		t.Errorf("px-s228 line filters the timeline to %q, want its evidence ids", pxFilter)
	}
	hits, err := ws.Search(ctx, evidenceRequest(pxFilter))
	if err != nil || hits.Total < 50 {
		t.Errorf("px-s228's evidence: %d events, %v", hits.Total, err)
	}
}

func evidenceRequest(q evidence.Query) evidence.Request { return evidence.Request{Query: q, Limit: 1} }
