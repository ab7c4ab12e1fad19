package watch

import (
	"context"
	"slices"
	"testing"

	"github.com/cordon-ir/cordon/detect"
)

// A verdict asked with no kill time, about an agent its harness killed,
// is judged at that kill, as the fleet's Standing is: the same
// Assessment, held capabilities and recommendation as a request giving
// that kill, saying whose kill it was; an agent nobody killed gets no
// Assessment.
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
			if plain.Assessment == nil || !plain.Assessment.Kill.Equal(kill) || plain.KillBy != detect.HarnessKill {
				t.Fatalf("%s, %s: no Assessment at the harness's kill %v: %+v by %q", name, agent, kill, plain.Assessment, plain.KillBy)
			}
			if asked.KillBy != requestKill {
				t.Errorf("%s, %s: a request's kill is said to be %q's", name, agent, asked.KillBy)
			}
			if plain.Assessment.Headline() != asked.Assessment.Headline() || plain.Recommendation != asked.Recommendation ||
				!slices.Equal(plain.Clauses, asked.Clauses) || !slices.Equal(plain.Capabilities, asked.Capabilities) {
				t.Errorf("%s, %s: at the harness's kill\n %s %v %+v\nasked with it\n %s %v %+v", name, agent,
					plain.Assessment.Headline(), plain.Recommendation, plain.Capabilities,
					asked.Assessment.Headline(), asked.Recommendation, asked.Capabilities)
			}
			if plain.Rank == nil || plain.Rank.Contained != plain.Assessment.Contained {
				t.Errorf("%s, %s: rank %+v, the Assessment contained %v", name, agent, plain.Rank, plain.Assessment.Contained)
			}
			t.Logf("%s, %s: %s; %s", name, agent, plain.Recommendation, plain.Assessment.Headline())
		}
		for _, agent := range p.Result().Capabilities.Agents() {
			if _, killed := kills[agent]; !killed {
				if d := decide(v, &pol, agent, &VerdictRequest{}); d.Assessment != nil || d.KillBy != "" {
					t.Errorf("%s, %s: nobody killed it, yet it is judged at %v by %q", name, agent, d.Assessment.Kill, d.KillBy)
				}
			}
		}
	}
}
