package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/cordon-ir/cordon/watch"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// publishFinding publishes a finding as a watcher does (watch.Message on
// watch.Subject, into the findings stream).
func publishFinding(t *testing.T, js jetstream.JetStream, f detect.Finding, change string) {
	t.Helper()
	b, err := json.Marshal(watch.Message{Finding: f, Change: change})
	if err != nil {
		t.Fatal(err)
	}
	msg := nats.NewMsg(watch.Subject(f.Severity, f.Agent))
	msg.Data = b
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
}

// putHolding puts what agent holds, and its standing (nil: no kill
// recorded), as a watcher does.
func putHolding(t *testing.T, js jetstream.JetStream, agent string, h capability.Holding, st *capability.Standing) {
	t.Helper()
	ctx := context.Background()
	kv, err := js.KeyValue(ctx, watch.HoldingsBucket(watch.DefaultFindingsStream))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(watch.Holding{Agent: agent, Holding: h, Standing: st})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, agent, b); err != nil {
		t.Fatal(err)
	}
}

// cordon open --nats against a real server in this process: the findings
// the stream held at start are on screen, a finding published while it
// runs shows within a second, a standing published with a holding says
// contained (and, under the cursor, the Assessment's line), and enter on an agent pulls its evidence
// from the events' stream and opens the console on it; quitting that
// console comes back to the fleet.
func TestFleetConsoleInTmux(t *testing.T) {
	url, js, at := fleetWithAFinding(t)

	c := startTmuxSized(t, 120, 30, func(dir, bin string) (string, string) {
		into := filepath.Join(dir, "pulled")
		return fmt.Sprintf("env XDG_STATE_HOME=%s TERM=xterm-256color %s open --nats %s --pull-into %s", dir, bin, url, into), into
	})
	c.wait("the fleet with the finding the stream held", "cordon · fleet", "1 agents · 1 findings · live", "agent-14")

	// a watcher publishes a finding: on screen within a second
	published := time.Now()
	publishFinding(t, js, detect.Finding{ID: "f2", Detector: "credential-access", Title: "read a credential file",
		Agent: "agent-9", Severity: detect.SeverityHigh, Start: at, End: at.Add(time.Minute), Events: []string{"y"}, Matches: 1}, watch.Created)
	var s string
	for {
		s = c.screen()
		if strings.Contains(s, "2 agents · 2 findings") && strings.Contains(s, "agent-9") {
			break
		}
		if time.Since(published) > 5*time.Second {
			t.Fatalf("the finding is not on screen 5s after it was published:\n%s", s)
		}
		time.Sleep(10 * time.Millisecond) // polling a real terminal
	}
	took := time.Since(published)
	t.Logf("a published finding reached the screen in %s", took.Round(time.Millisecond))
	if took > time.Second {
		t.Errorf("the finding took %s to reach the screen (at most 1s)", took)
	}
	// ranked as the ranking ranks: the high finding's agent first
	if i, j := strings.Index(s, "agent-9"), strings.Index(s, "agent-14"); i < 0 || j < 0 || i > j {
		t.Fatalf("agent-9 (high) should be ranked above agent-14 (medium):\n%s", s)
	}

	// a watcher puts what agent-14 holds (a credential acquired and
	// revoked by its issuer): its line says so, and it stays below
	// agent-9, which may hold nothing it has no end of either
	held := capability.Holding{Acquired: map[capability.Kind]int{capability.Credential: 1}}
	putHolding(t, js, "agent-14", held, nil)
	c.wait("agent-14's holding on its line", "acquired a credential")
	s = c.screen()
	if i, j := strings.Index(s, "agent-9"), strings.Index(s, "agent-14"); i < 0 || j < 0 || i > j {
		t.Fatalf("agent-9 (high) should still be ranked above agent-14 (medium, nothing held unended):\n%s", s)
	}
	// its harness killed agent-14 and its watcher's Assessment at that
	// kill found everything stopped: the line says contained, and the
	// cursor, still on it, shows the Assessment's line and who killed it
	kill := at.Add(30 * time.Minute)
	putHolding(t, js, "agent-14", held, &capability.Standing{Kill: kill, By: detect.HarnessKill, Contained: true, ContainedAt: kill,
		Headline: "Contained at " + kill.Format("2006-01-02 15:04:05Z") + " (killed " + kill.Format("2006-01-02 15:04:05Z") + ")"})
	c.wait("agent-14 contained", "contained; acquired a credential")
	c.wait("the Assessment's line under the cursor", "agent-14: Contained at", "by the harness's ledger")

	// the cursor stayed on agent-14's line as agent-9 ranked above it; g
	// goes to the first, agent-9, and enter pulls and opens its incident
	c.send("g")
	c.send("Enter")
	c.wait("the pulled incident's console", "TIMELINE", "events")
	c.wait("agent-9's events", "agent-9")
	c.send("q")
	c.wait("the fleet again", "cordon · fleet", "2 agents · 2 findings")
	c.send("q")
	c.wait("cordon to exit", "reopen with: cordon open "+c.ws)

	// the workspace opened is agent-9's pull: its events, and of agent-14
	// only the identity records every pull takes (its session records)
	dirs, _ := filepath.Glob(filepath.Join(c.ws, "agent-9-*"))
	if len(dirs) != 1 {
		all, _ := filepath.Glob(filepath.Join(c.ws, "*"))
		t.Fatalf("pulled workspaces %v (of %v), want one of agent-9\n%s", dirs, all, c.screen())
	}
	if n := len(eventsOf(t, dirs[0], "agent-9")); n < 67 {
		t.Errorf("the pulled incident holds %d events of agent-9; its ledger alone has 67", n)
	}
	if n := len(eventsOf(t, dirs[0], "agent-14")); n > 10 {
		t.Errorf("the pulled incident holds %d events of agent-14, which was not chosen (122 in its ledger)", n)
	}
}

// fleetWithAFinding starts a server in this process, ships the
// credential-theft sample to it, and publishes one finding of agent-14
// (at at): what both fleet console tests start from.
func fleetWithAFinding(t *testing.T) (url string, js jetstream.JetStream, at time.Time) {
	t.Helper()
	url = fleettest.Server(t).ClientURL()
	sample := filepath.Join("..", "..", "sample-incidents", "credential-theft")
	if code, out, errOut := cordon("ship", "--nats", url, "--state", filepath.Join(t.TempDir(), "ship.json"), sample); code != 0 {
		t.Fatalf("ship: exit %d\n%s%s", code, out, errOut)
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if js, err = jetstream.New(nc); err != nil {
		t.Fatal(err)
	}
	if err := watch.EnsureFindingsStream(context.Background(), js, watch.DefaultFindingsStream, 1); err != nil {
		t.Fatal(err)
	}
	// and the bucket of what agents hold, as a watcher makes it
	if _, err := watch.EnsureHoldings(context.Background(), js, watch.DefaultFindingsStream, 1); err != nil {
		t.Fatal(err)
	}
	at = time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC)
	publishFinding(t, js, detect.Finding{ID: "f1", Detector: "boundary-probing", Title: "probed the boundary",
		Agent: "agent-14", Severity: detect.SeverityMedium, Start: at, End: at, Events: []string{"x"}, Matches: 1}, watch.Created)
	return url, js, at
}
