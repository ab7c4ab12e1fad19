package watch

import (
	"context"
	"slices"
	"testing"

	"github.com/cordon-ir/cordon/detect"
)

// A verdict asked with no kill time, about an agent its harness killed,
// is judged at that kill, as the fleet's Standing is: its Standing, held
// capabilities and recommendation are those of a request giving that
// kill, and say whose kill it was; an agent nobody killed gets neither.
func TestVerdictJudgedAtTheHarnessKill(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := DefaultPolicy()
	for _, name := range []string{"credential-theft", "egress-probe-exfil", "persistence-after-kill", "cloud-key-after-kill"} {
		evs := sampleEvents(t, name)
		p, err := (&detect.Engine{Rules: rules, Attribute: true}).Start(context.Background(), detect.NewMemSource(nil))
		if err != nil {
			t.Fatal(err)
		}
		for i := range evs {
			if err := p.Add(&evs[i]); err != nil {
				t.Fatal(err)
			}
		}
		v := newView(p.View(), p.Last().Time, p.Events())
		kills := p.HarnessKills()
		if len(kills) == 0 {
			t.Fatalf("%s: its harness killed no agent", name)
		}
		for agent, kill := range kills {
			plain := decide(v, &pol, agent, &VerdictRequest{})
			asked := decide(v, &pol, agent, &VerdictRequest{Kill: kill})
			if plain.Standing == nil || !plain.Standing.Kill.Equal(kill) || plain.Standing.By != detect.HarnessKill || plain.Assessment != nil {
				t.Fatalf("%s, %s: no Standing at the harness's kill %v: %+v (Assessment %v)", name, agent, kill, plain.Standing, plain.Assessment != nil)
			}
			if asked.Assessment == nil || asked.Standing != nil {
				t.Fatalf("%s, %s: asked with a kill: Assessment %v, Standing %+v", name, agent, asked.Assessment != nil, asked.Standing)
			}
			if plain.Standing.Headline != asked.Assessment.Headline() || plain.Standing.Contained != asked.Assessment.Contained ||
				plain.Recommendation != asked.Recommendation || !slices.Equal(plain.Clauses, asked.Clauses) ||
				!slices.Equal(plain.Capabilities, asked.Capabilities) {
				t.Errorf("%s, %s: at the harness's kill\n %s %v %+v\nasked with it\n %s %v %+v", name, agent,
					plain.Standing.Headline, plain.Recommendation, plain.Capabilities,
					asked.Assessment.Headline(), asked.Recommendation, asked.Capabilities)
			}
			if plain.Rank == nil || plain.Rank.Contained != plain.Standing.Contained {
				t.Errorf("%s, %s: rank %+v, the Standing contained %v", name, agent, plain.Rank, plain.Standing.Contained)
			}
			t.Logf("%s, %s: %s; %s", name, agent, plain.Recommendation, plain.Standing.Headline)
		}
		for _, agent := range p.Result().Capabilities.Agents() {
			if _, killed := kills[agent]; !killed {
				if d := decide(v, &pol, agent, &VerdictRequest{}); d.Assessment != nil || d.Standing != nil {
					t.Errorf("%s, %s: nobody killed it, yet it is judged: %v %+v", name, agent, d.Assessment != nil, d.Standing)
				}
			}
		}
	}
}
