package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
)

// streamMessages is how many messages a stream on the server at url holds.
func streamMessages(t *testing.T, url, stream string) uint64 {
	t.Helper()
	nc, js, err := fleet.Connect(url, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	return fleettest.Messages(t, js, stream)
}

func TestShipSendsAnIncidentOnceAndResumes(t *testing.T) {
	url := fleettest.Server(t).ClientURL()
	state := filepath.Join(t.TempDir(), "ship.json")
	dir := filepath.Join("..", "..", "sample-incidents", "created-workload")

	code, out, errOut := cordon("ship", "--nats", url, "--stream", "LAB", "--state", state, dir)
	if code != 0 {
		t.Fatalf("ship: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "sent 420 of 420 events to stream LAB, 0 rejected") {
		t.Fatalf("ship said:\n%s", out)
	}
	if !strings.Contains(out, "k8s-audit.jsonl: k8s-audit") {
		t.Errorf("no line for the audit log in:\n%s", out)
	}
	if n := streamMessages(t, url, "LAB"); n != 420 {
		t.Fatalf("stream LAB holds %d messages, want 420", n)
	}

	code, out, errOut = cordon("ship", "--nats", url, "--stream", "LAB", "--state", state, dir)
	if code != 0 || !strings.Contains(out, "sent 0 of 0 events") {
		t.Fatalf("second ship: exit %d\n%s%s", code, out, errOut)
	}
	if n := streamMessages(t, url, "LAB"); n != 420 {
		t.Fatalf("stream LAB holds %d messages after a second ship, want 420", n)
	}

	// the same as JSON lines: each input, then the totals
	code, out, errOut = cordon("ship", "--nats", fleettest.Server(t).ClientURL(), "--stream", "LAB2", "--state", state+"2", "--json", dir)
	if code != 0 {
		t.Fatalf("ship --json: exit %d\n%s%s", code, out, errOut)
	}
	docs := jsonLines(t, "ship --json", out)
	last := docs[len(docs)-1]
	if len(docs) < 2 || last["sent"] != 420.0 || last["read"] != 420.0 || last["stream"] != "LAB2" || docs[0]["path"] == nil {
		t.Errorf("ship --json:\n%s", out)
	}
}

func TestShipListsMalformedLinesSafelyAndGoesOn(t *testing.T) {
	url := fleettest.Server(t).ClientURL()
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	body := "1793786475.856   3288 10.0.6.21 TCP_TUNNEL/200 86620 CONNECT pypi.org:443 px-s701 HIER_DIRECT/151.101.0.223 -\n" +
		"1793786477.094   1204 10.0.6.21 TCP_TUNNEL/200 430550 CONNECT files.pythonhosted.org:443 px-s701 HIER_DIRECT/151.101.64.223 -\n" +
		"not squid \x1b]0;owned\x07 at all\n" +
		"1793786478.094   1204 10.0.6.21 TCP_TUNNEL/200 430550 CONNECT example.org:443 px-s701 HIER_DIRECT/151.101.64.223 -\n"
	if err := os.WriteFile(log, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cordon("ship", "--nats", url, "--state", filepath.Join(dir, "ship.json"), log)
	if code != 0 {
		t.Fatalf("ship: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, log+":3: rejected (squid): ") {
		t.Fatalf("stderr does not name the bad line:\n%s", errOut)
	}
	if strings.ContainsAny(errOut+out, "\x1b\x07") {
		t.Fatalf("control characters from the log reached the terminal:\n%q", errOut)
	}
	if !strings.Contains(out, "sent 3 of 3 events to stream CORDON_EVENTS, 1 rejected") {
		t.Fatalf("ship said:\n%s", out)
	}
}

func TestShipWithoutAServerSaysSo(t *testing.T) {
	s := fleettest.Server(t)
	url := s.ClientURL()
	s.Shutdown()
	s.WaitForShutdown()
	log := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(log, []byte("1793786475.856   3288 10.0.6.21 TCP_TUNNEL/200 86620 CONNECT pypi.org:443 px-s701 HIER_DIRECT/151.101.0.223 -\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := cordon("ship", "--nats", url, "--state", filepath.Join(t.TempDir(), "s.json"), log)
	if code != exitError || !strings.Contains(errOut, "connect to "+url) {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
}

func TestShipNeedsAServerAndInputs(t *testing.T) {
	t.Setenv("NATS_URL", "")
	for _, args := range [][]string{{"ship", "x"}, {"ship", "--nats", "nats://127.0.0.1:1"}} {
		if code, _, _ := cordon(args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

func TestShipTakesNATSURLFromTheEnvironmentWithoutShowingIt(t *testing.T) {
	url := fleettest.Server(t).ClientURL()
	t.Setenv("NATS_URL", strings.Replace(url, "nats://", "nats://u:secret-pw@", 1))
	if _, out, _ := cordon("help", "ship"); strings.Contains(out, "secret-pw") {
		t.Fatalf("help shows the password from $NATS_URL:\n%s", out)
	}
	log := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(log, []byte("1793786475.856   3288 10.0.6.21 TCP_TUNNEL/200 86620 CONNECT pypi.org:443 px-s701 HIER_DIRECT/151.101.0.223 -\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// the server has no users: it takes the connection and the event
	code, out, errOut := cordon("ship", "--state", filepath.Join(t.TempDir(), "s.json"), log)
	if code != 0 || !strings.Contains(out, "sent 1 of 1 events") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}
