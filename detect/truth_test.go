package detect_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/sample-incidents/truth"
)

// Attribution agrees with every sample's ground truth on every attributable
// record: a record whose sandbox had a bound key gets its agent, and a record
// from no sandbox (a CI runner using a stolen credential) gets none. Records
// of a person acting inside an agent's sandbox (a responder's kubectl exec,
// which the API server's audit log names) are the person's, not the
// agent's.
func TestAttributionMatchesGroundTruth(t *testing.T) {
	for _, name := range []string{"egress-probe-exfil", "credential-theft", "persistence-after-kill", "busy-benign", "shared-volume-token"} {
		t.Run(name, func(t *testing.T) {
			tr, err := truth.Load(filepath.Join("..", "sample-incidents", name, "truth.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			evs := loadSample(t, name)
			id := attribution.NewIdentity(evs)
			prefix := filepath.Join("..", "sample-incidents", name) + string(filepath.Separator)
			checked, persons := 0, 0
			for i := range evs {
				ev := &evs[i]
				want, ok := tr.Attribution[strings.TrimPrefix(ev.Origin, prefix)]
				if !ok {
					continue
				}
				if want.Actor != "" {
					// a responder's kubectl exec: the person's, not the agent's
					persons++
					if a := id.Attribute(ev); a.Agent != "" || a.Via != attribution.ViaResponder || a.Actor != want.Actor {
						t.Errorf("%s: a responder's record attributed to %q via %q (actor %q), truth %s", ev.Origin, a.Agent, a.Via, a.Actor, want.Actor)
					}
					continue
				}
				if want.Agent != "" && want.ViaExpected == "none" {
					continue // no key bound yet: unattributable by design
				}
				checked++
				a := id.Attribute(ev)
				if a.Agent != want.Agent {
					t.Errorf("%s: attributed to %q via %q %v, truth %q (%s)", ev.Origin, a.Agent, a.Via, a.Candidates, want.Agent, want.Note)
				}
			}
			if checked < 300 {
				t.Errorf("only %d records checked", checked)
			}
			if name == "persistence-after-kill" && persons != 13 {
				t.Errorf("%d records of the responder, truth has 13", persons)
			}
			t.Logf("%d records agree with the truth, and %d records of a person in a sandbox", checked, persons)
		})
	}
}

// A borrowed credential used from outside every sandbox is ambiguous
// between the borrower and its owner, as truth.yaml's candidates say:
// attributing it by the credential alone blamed the victim.
func TestBorrowedCredentialUsesAreAmbiguous(t *testing.T) {
	for _, name := range []string{"egress-probe-exfil", "credential-theft", "persistence-after-kill", "busy-benign", "shared-volume-token"} {
		t.Run(name, func(t *testing.T) {
			tr, err := truth.Load(filepath.Join("..", "sample-incidents", name, "truth.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			evs := loadSample(t, name)
			attribution.AttributeAll(evs)
			prefix := filepath.Join("..", "sample-incidents", name) + string(filepath.Separator)
			checked := 0
			for _, ev := range evs {
				want, ok := tr.Attribution[strings.TrimPrefix(ev.Origin, prefix)]
				if !ok || len(want.Candidates) == 0 {
					continue
				}
				checked++
				var got []string
				for _, tag := range ev.Tags {
					if c, ok := strings.CutPrefix(tag, "candidate:"); ok {
						got = append(got, c)
					}
				}
				if ev.Agent != "" || ev.AttributedVia != attribution.ViaAmbiguous || strings.Join(got, ",") != strings.Join(want.Candidates, ",") {
					t.Errorf("%s: agent %q via %q candidates %v, truth candidates %v", ev.Origin, ev.Agent, ev.AttributedVia, got, want.Candidates)
				}
			}
			if name == "credential-theft" && checked != 47 {
				t.Errorf("%d records with candidates, want the 47 of the CI job", checked)
			}
			if name == "shared-volume-token" && checked != 30 {
				t.Errorf("%d records with candidates, want the 30 of the bench job", checked)
			}
		})
	}
}
