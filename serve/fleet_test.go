package serve_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/serve"
	"github.com/cordon-ir/cordon/serve/servetest"
	"github.com/cordon-ir/cordon/tui/fleetview"
)

func fleetFinding(id, agent, sev string) detect.Finding {
	at := time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC)
	return detect.Finding{ID: id, Agent: agent, Detector: "credential-access", Title: "read a credential file",
		Severity: sev, Start: at, End: at, Events: []string{"e" + id}, Matches: 1}
}

// The fleet's console over SSH: every session reads the one board and
// sees a finding as it is applied; a responder's enter pulls (here: the
// console fixture's workspace) and opens the incident's console in the
// same session, and q there comes back to the fleet; an observer's enter
// pulls nothing and says why.
func TestServeFleetConsole(t *testing.T) {
	board := fleetview.NewBoard()
	board.SetStatus("")
	board.Apply(fleetFinding("1", "agent-7", detect.SeverityHigh), fleetview.Created)
	var pulls atomic.Int32
	var pulled atomic.Value
	alice := servetest.NewKey(t, "alice@oncall")
	olive := servetest.NewKey(t, "olive@audit")
	s := start(t, "", serve.Options{
		AuthorizedKeys: keysFile(t, "authorized_keys", alice),
		Observers:      keysFile(t, "observers", olive),
		HostKey:        filepath.Join(t.TempDir(), "host_key"),
		Fleet: &serve.Fleet{Board: board, Source: "CORDON_FINDINGS",
			Pull: func(_ context.Context, sel fleetview.Selection) (string, error) {
				pulls.Add(1)
				pulled.Store(sel.Agent)
				return fixtureDir(t), nil
			}},
	})

	olv := servetest.Open(t, s.dial(t, "olive", olive), 120, 30)
	olv.WaitFor("agent-7", wait)
	olv.Type("\r")
	olv.WaitFor("read-only console", wait)

	term := servetest.Open(t, s.dial(t, "alice", alice), 120, 30)
	term.WaitFor("cordon · fleet", wait)
	term.WaitFor("agent-7", wait)
	board.Apply(fleetFinding("2", "agent-8", detect.SeverityCritical), fleetview.Created)
	term.WaitFor("agent-8", 2*time.Second)
	olv.WaitFor("agent-8", 2*time.Second)

	term.Type("g\r") // agent-8 leads: critical
	term.WaitFor("TIMELINE", wait)
	term.WaitFor(loaded, wait)
	if got, _ := pulled.Load().(string); got != "agent-8" || pulls.Load() != 1 {
		t.Fatalf("pulled %q %d times, want agent-8 once (the observer pulls nothing)", got, pulls.Load())
	}
	term.Type("q")
	// back on the fleet, which went on following its board
	board.Apply(fleetFinding("3", "agent-back", detect.SeverityLow), fleetview.Created)
	term.WaitFor("agent-back", wait)
	term.Type("q")
	if !term.WaitEOF(wait) {
		t.Fatal("the session did not end after q on the fleet")
	}
}
