package incident_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
)

func sampleDir(name string) string { return filepath.Join("..", "sample-incidents", name) }

// restartable ingests a sample into a workspace the test closes and opens
// again itself (incidenttest.New closes its own at cleanup).
func restartable(t *testing.T, name string) *incident.Workspace {
	t.Helper()
	ws, err := incident.Create(filepath.Join(t.TempDir(), "inc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Ingest(context.Background(), []string{sampleDir(name)}, incident.IngestOptions{Actor: incidenttest.FixtureActor}); err != nil {
		ws.Close()
		t.Fatal(err)
	}
	return ws
}

// A suppression is on the record: journaled with who and why, there after
// a restart, counted in the ranking, and the journal still verifies. It
// takes no finding away and changes no check.
func TestSuppressionSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	ws := restartable(t, "persistence-after-kill")
	dir := ws.Dir
	alice := journal.Actor{Name: "alice", Via: journal.ViaCLI}
	before, err := ws.CachedFindings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checksBefore, err := ws.Check(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Suppress(ctx, alice, detect.Scope{Detector: "persistence"}, ""); err == nil {
		t.Error("a suppression without a reason was journaled")
	}
	if _, err := ws.Suppress(ctx, alice, detect.Scope{Detector: "no-such-rule"}, "noise"); err == nil {
		t.Error("a suppression of an unknown detector was journaled")
	}
	s, err := ws.Suppress(ctx, alice, detect.Scope{Detector: "persistence", Agent: "agent-21"}, "the watchdog is the eval's own")
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()

	ws2, err := incident.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws2.Close()
	sups, err := ws2.Suppressions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(sups) != 1 || sups[0].ID != s.ID || sups[0].By.Name != "alice" || sups[0].Reason != "the watchdog is the eval's own" || sups[0].At.IsZero() {
		t.Fatalf("after a restart: %+v", sups)
	}
	after, err := ws2.CachedFindings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("%d findings after the suppression, %d before: a suppression deletes nothing", len(after), len(before))
	}
	by, err := ws2.SuppressedBy(ctx, after, sups)
	if err != nil {
		t.Fatal(err)
	}
	if len(by) != 1 {
		t.Errorf("the suppression covers %d findings, want the one persistence finding: %v", len(by), by)
	}
	ranks, err := ws2.AgentRanking(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ranks[0].Agent != "agent-21" || ranks[0].Suppressed != 1 || !strings.Contains(ranks[0].Reason, "1 suppressed") || ranks[0].Episodes != len(after) {
		t.Errorf("ranking: %+v", ranks[0])
	}
	checksAfter, err := ws2.Check(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	for i := range checksBefore {
		a, b := checksBefore[i], checksAfter[i]
		if a.Status != b.Status || !reflect.DeepEqual(a.Events, b.Events) {
			t.Errorf("check %s: %s before the suppression, %s after", a.Step, a.Status, b.Status)
		}
	}
	v, err := ws2.VerifyJournal()
	if err != nil || !v.OK() {
		t.Errorf("journal verify: %v %v", v.Problem, err)
	}
}

// cordon.yaml's suppressions are journaled once, with the file's digest;
// an edited file is journaled again.
func TestConfigSuppressionsJournaledAtFirstLoad(t *testing.T) {
	ctx := context.Background()
	ws := restartable(t, "persistence-after-kill")
	dir := ws.Dir
	conf := "suppress:\n  - {detector: persistence-files, agent: agent-21, reason: the eval writes its own unit files}\n"
	if err := os.WriteFile(filepath.Join(dir, "cordon.yaml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	ws.Close()
	for range 2 {
		w, err := incident.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		sups, err := w.Suppressions(ctx)
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(sups) != 1 || !strings.HasPrefix(sups[0].From, "cordon.yaml sha256:") || sups[0].Detector != "persistence-files" {
			t.Fatalf("suppressions: %+v", sups)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "cordon.yaml"), []byte(conf+"  - {detector: persistence, reason: also}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := incident.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sups, err := w.Suppressions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(sups) != 3 || sups[1].From == sups[0].From {
		t.Errorf("after an edit: %+v", sups)
	}
	if _, err := incident.LoadConfig(t.TempDir(), false); err != nil {
		t.Fatal(err)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "cordon.yaml"), []byte("suppress:\n  - {detector: persistence}\n"), 0o600)
	if _, err := incident.LoadConfig(bad, false); err == nil || !strings.Contains(err.Error(), "reason") {
		t.Errorf("a suppression without a reason in cordon.yaml: %v", err)
	}
}
