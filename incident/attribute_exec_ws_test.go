package incident

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/journal"
)

// The kill switch's kubectl exec, as the journal records it, makes what it
// starts in that pod the responder's: persistence-after-kill without the
// API server's audit log, and with the exec journaled instead, charges
// the responder's shell and its children to the person, not to agent-21.
func TestJournaledExecIsTheResponders(t *testing.T) {
	ctx := context.Background()
	sample := filepath.Join("..", "sample-incidents", "persistence-after-kill")
	ws, err := Create(filepath.Join(t.TempDir(), "inc"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	// the action ran at 15:02:49 and took 0.4 s; the journal wrote it then
	ws.SetClock(func() time.Time { return time.Date(2026, 9, 2, 15, 2, 49, 900_000_000, time.UTC) })
	payload := ActionPayload{Action: "shell", Runs: []ActionRun{{Argv: []string{"kubectl", "exec", "-it", "-n", "agent-evals", "sandbox-sb-118", "--", "bash"}, Took: 400 * time.Millisecond}}}
	if _, err := ws.appendJSON(ctx, journal.Entry{Actor: journal.Actor{Name: "pdiaz", Via: journal.ViaCLI}, Type: journal.EntryActionRun, Text: "shell"}, payload); err != nil {
		t.Fatal(err)
	}
	ws.SetClock(time.Now)
	if _, err := ws.Ingest(ctx, []string{filepath.Join(sample, "ledger.jsonl"), filepath.Join(sample, "sensor")}, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	h, err := ws.store.Search(ctx, evidence.Request{Query: evidence.Term("attributed_via", "responder"), Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if h.Total != 13 {
		t.Errorf("%d events attributed to the responder, want the 13 under the exec", h.Total)
	}
	for _, ev := range h.Events {
		if ev.Agent != "" || !slices.Contains(ev.Tags, "actor:pdiaz") {
			t.Errorf("%s: agent %q tags %v", ev.Origin, ev.Agent, ev.Tags)
		}
	}
}
