package detect_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// runAllBuiltin attributes evs and runs every built-in rule over them.
func runAllBuiltin(t *testing.T, evs []evidence.Event) []detect.Finding {
	t.Helper()
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	attribution.AttributeAll(evs)
	fs, err := (&detect.Engine{Rules: rules}).Run(context.Background(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// assertUniqueIDs fails for every finding id two findings share.
func assertUniqueIDs(t *testing.T, fs []detect.Finding) {
	t.Helper()
	byID := map[string]detect.Finding{}
	for _, f := range fs {
		if g, ok := byID[f.ID]; ok {
			t.Errorf("finding id %s twice: %s %s %s–%s (%d events) and %s %s %s–%s (%d events)", f.ID,
				g.Detector, g.Agent, g.Start, g.End, len(g.Events), f.Detector, f.Agent, f.Start, f.End, len(f.Events))
		}
		byID[f.ID] = f
	}
}

// Two findings with one id and different events (two plan-divergence
// episodes whose off-plan stretches overlap start on the same call): a
// case's notes, the report and the assistant's citations name a finding
// by its id, so two must never share one.
func TestDuplicateFindingIDs(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "sample-incidents", "*", "truth.yaml"))
	if err != nil || len(paths) < 4 {
		t.Fatalf("truth files: %v %v", paths, err)
	}
	for _, p := range paths {
		name := filepath.Base(filepath.Dir(p))
		t.Run(name, func(t *testing.T) {
			assertUniqueIDs(t, sampleFindings(t, name))
		})
	}
	t.Run("synthetic", func(t *testing.T) {
		n := 100_000
		if testing.Short() {
			n = 20_000
		}
		assertUniqueIDs(t, runAllBuiltin(t, synthetic(n)))
	})
}

// overlappingDivergence is a ledger in which agent-3's off-plan stretch
// is broken by on-plan calls and resumes within the window: the second
// stretch reaches back to the same first call as the first.
func overlappingDivergence(t *testing.T) []evidence.Event {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"v":1,"ts":"2026-08-11T09:00:00.000Z","type":"session_start","run":"r-1","agent":"agent-3","session":"s-1","objective":"fix the tests in /work/app","sandbox":{"id":"sb-1","container_id":"828776803ce7","ip":"10.0.2.17"},"credentials":[{"id":"px-s1","kind":"proxy-auth"}],"tools_allowed":["bash"],"egress_allowlist":["pypi.org"]}` + "\n")
	cmds := []string{"cat /etc/passwd", "cat /home/agent/.netrc", "cat /root/.ssh/id_rsa", "cat /etc/hosts", "cat /var/run/secrets/token",
		"ls /work/app", "ls /work/app/src", "ls /work/app/tests", "cat /work/app/README.md", "cat /work/app/setup.py",
		"cat /etc/shadow", "ls /work/app/docs"}
	for i, cmd := range cmds {
		fmt.Fprintf(&b, `{"v":1,"ts":"2026-08-11T09:%02d:%02d.000Z","type":"tool_call","run":"r-1","agent":"agent-3","session":"s-1","call_id":"c-%d","tool":"bash","args":{"cmd":%q}}`+"\n",
			1+i/6, (i%6)*10, i, cmd)
	}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return loadFiles(t, path)
}

// The plan-divergence stretches of overlappingDivergence start on the same
// call and overlap: they are one episode (one finding of two matches, every
// event of both), with the same id on every run.
func TestDuplicateFindingIDsPlanDivergence(t *testing.T) {
	fs := runBuiltin(t, "plan-divergence", overlappingDivergence(t))
	if len(fs) != 1 || fs[0].Matches != 2 {
		for _, f := range fs {
			t.Logf("%s %d %s %v", f.ID, f.Matches, f.Explanation, f.Events)
		}
		t.Fatalf("want one plan-divergence episode of two matches, got %d findings", len(fs))
	}
	if len(fs[0].Events) != 6 {
		t.Errorf("episode holds %d events, want the 6 of both stretches: %v", len(fs[0].Events), fs[0].Events)
	}
	again := runBuiltin(t, "plan-divergence", overlappingDivergence(t))
	if again[0].ID != fs[0].ID {
		t.Errorf("id %s, then %s on a second run", fs[0].ID, again[0].ID)
	}
}
