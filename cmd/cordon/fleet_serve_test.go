package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/serve/servetest"
	"github.com/cordon-ir/cordon/watch"
	gossh "golang.org/x/crypto/ssh"
)

// cordon serve --nats against a real server in this process, over SSH: a
// finding published while a responder and an observer watch is on both
// screens within a second; the observer's enter pulls nothing; the
// responder's enter pulls agent-9's evidence and opens its console in the
// session.
func TestFleetServeOverSSH(t *testing.T) {
	url, js, at := fleetWithAFinding(t)

	tmp := t.TempDir()
	alice := servetest.NewKey(t, "alice@oncall")
	olive := servetest.NewKey(t, "olive@audit")
	auth, obs := filepath.Join(tmp, "authorized_keys"), filepath.Join(tmp, "observers")
	servetest.WriteKeys(t, auth, alice)
	servetest.WriteKeys(t, obs, olive)
	into := filepath.Join(tmp, "pulled")
	s := launchServeArgs(t, into, alice, "--nats", url, "--listen", "127.0.0.1:0", "--authorized-keys", auth,
		"--observers", obs, "--host-key", filepath.Join(tmp, "host_key"), "--pull-into", into)
	dial := func(user string, k servetest.Key) *servetest.Terminal {
		c, err := servetest.Dial(s.addr, user, s.fingerprint, gossh.PublicKeys(k.Signer))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return servetest.Open(t, c, 120, 30)
	}
	resp, obsv := dial("alice", alice), dial("olive", olive)
	resp.WaitFor("agent-14", 20*time.Second)
	obsv.WaitFor("agent-14", 20*time.Second)

	published := time.Now()
	publishFinding(t, js, detect.Finding{ID: "f2", Detector: "credential-access", Title: "read a credential file",
		Agent: "agent-9", Severity: detect.SeverityHigh, Start: at, End: at.Add(time.Minute), Events: []string{"y"}, Matches: 1}, watch.Created)
	resp.WaitFor("agent-9", 5*time.Second)
	obsv.WaitFor("agent-9", 5*time.Second)
	took := time.Since(published)
	t.Logf("a published finding reached both SSH screens in %s", took.Round(time.Millisecond))
	if took > time.Second {
		t.Errorf("the finding took %s to reach the screens (at most 1s)", took)
	}

	obsv.Type("\r")
	obsv.WaitFor("read-only console", 20*time.Second)
	resp.Type("g\r")
	resp.WaitFor("TIMELINE", 30*time.Second)
	dirs, _ := filepath.Glob(filepath.Join(into, "agent-9-*"))
	if len(dirs) != 1 {
		t.Fatalf("pulled workspaces %v, want one of agent-9 (and none for the observer)", dirs)
	}
}
