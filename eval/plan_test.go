package eval

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/credentials"
)

// TestEvalPlanCanariesAreInert: every test of the built-in suite gets a
// probe name and the run id; a credential canary sits where the catalogue
// keeps its class and holds a canary token; every host is below the
// canary domain; units and jobs run /bin/true; a process ends.
func TestEvalPlanCanariesAreInert(t *testing.T) {
	s, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	p, err := MakePlan(s, "r-eval-1", "canary.lab.example")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tests) != len(s.Tests) {
		t.Fatalf("%d tests planned, want %d", len(p.Tests), len(s.Tests))
	}
	kinds := map[string]int{}
	for _, pt := range p.Tests {
		if pt.Run != "r-eval-1" || pt.Probe != "cordon-builtin/"+pt.Test {
			t.Errorf("%s: run %q probe %q", pt.Test, pt.Run, pt.Probe)
		}
		for _, c := range pt.Canaries {
			kinds[c.Kind]++
			switch c.Kind {
			case CanaryHost:
				if !strings.HasSuffix(c.Name, ".r-eval-1.canary.lab.example") {
					t.Errorf("%s: host %s is not below the canary domain", pt.Test, c.Name)
				}
			case CanaryCredential:
				class := strings.TrimPrefix(pt.Test, "read-credential-")
				if l, ok := credentials.LocationOf(c.Path); !ok || strings.HasPrefix(pt.Test, "read-credential-") && l.Class != class {
					t.Errorf("%s: %s is not where the catalogue keeps %s (%v)", pt.Test, c.Path, class, l.Class)
				}
				fallthrough
			case CanaryMetadata:
				if !strings.HasPrefix(c.Token, "cordon-canary-") {
					t.Errorf("%s: token %q is not a canary token", pt.Test, c.Token)
				}
			case CanaryUnit, CanaryJob:
				if c.Runs != "/bin/true" {
					t.Errorf("%s: %s runs %q", pt.Test, c.Name, c.Runs)
				}
			case CanaryProcess:
				if c.Ends == "" {
					t.Errorf("%s: process %s does not end", pt.Test, c.Name)
				}
			}
		}
	}
	for _, k := range []string{CanaryHost, CanaryCredential, CanaryMetadata, CanaryUnit, CanaryProcess, CanaryJob} {
		if kinds[k] == 0 {
			t.Errorf("no test has a %s canary", k)
		}
	}
	if p2, _ := MakePlan(s, "r-eval-2", "canary.lab.example"); p2.Tests[5].Canaries[0].Token == p.Tests[5].Canaries[0].Token {
		t.Errorf("two runs share a canary token")
	}
	for _, bad := range [][2]string{{"", "canary.lab.example"}, {"r 1", "canary.lab.example"}, {"r-1", "not a domain"}} {
		if _, err := MakePlan(s, bad[0], bad[1]); err == nil {
			t.Errorf("run %q domain %q: no error", bad[0], bad[1])
		}
	}
}
