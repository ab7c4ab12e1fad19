package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/cordon-ir/cordon/evidence/vlogs/vlogstest"
	"github.com/cordon-ir/cordon/fleet/fleettest"
)

// shipSample ships a sample incident to a new in-process server and
// returns its URL and the workspace an ingest of the sample's files makes.
func shipSample(t *testing.T, sample string) (url, ref string) {
	t.Helper()
	dir := filepath.Join("..", "..", "sample-incidents", sample)
	ref = t.TempDir()
	if code, _, errOut := cordon("ingest", "--incident", ref, dir); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	url = fleettest.Server(t).ClientURL()
	if code, out, errOut := cordon("ship", "--nats", url, "--state", filepath.Join(t.TempDir(), "ship.json"), dir); code != 0 {
		t.Fatalf("ship: exit %d\n%s%s", code, out, errOut)
	}
	return url, ref
}

// onStore fails unless the workspace at ws keeps its events on a store
// outside its folder, and no index in it.
func onStore(t *testing.T, ws string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(ws, "store.json")); err != nil {
		t.Errorf("%s names no store: %v", ws, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "index.bleve")); err == nil {
		t.Errorf("%s has an index of its own", ws)
	}
}

// cordon pull --store victorialogs://…, and a pull into a workspace whose
// cordon.yaml says store:, write the case into VictoriaLogs: the agents'
// events are the ingest's, byte for byte, and so are their findings.
func TestPullWritesTheCaseIntoVictoriaLogs(t *testing.T) {
	addr := vlogstest.Start(t)
	url, ref := shipSample(t, "shared-volume-token")
	agent := "agent-40"
	want := without(findingLines(t, ref, []string{agent}), peerDetector)
	if len(want) == 0 {
		t.Fatal("no findings for the agent: the comparison would prove nothing")
	}
	flag := filepath.Join(t.TempDir(), "flag")
	byConfig := filepath.Join(t.TempDir(), "config")
	if err := os.MkdirAll(byConfig, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(byConfig, "cordon.yaml"), []byte("store: "+addr+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for ws, extra := range map[string][]string{flag: {"--store", addr}, byConfig: nil} {
		args := append([]string{"pull", "--nats", url, "--agent", agent, "--since", "2000-01-01T00:00:00Z", "--incident", ws}, extra...)
		if code, out, errOut := cordon(args...); code != 0 {
			t.Fatalf("pull into %s: exit %d\n%s%s", ws, code, out, errOut)
		}
		onStore(t, ws)
		if got, want := eventsOf(t, ws, agent), eventsOf(t, ref, agent); len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: %d events pulled into the store, the ingest holds %d; they differ", ws, len(got), len(want))
		}
		if got := without(findingLines(t, ws, []string{agent}), peerDetector); !slices.Equal(got, want) {
			t.Errorf("%s: findings\n%s\nwant\n%s", ws, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// cordon archive keeps the whole stream in VictoriaLogs; a case made on
// the archive reads its events in place and finds what an ingest of the
// sample's files finds, without shipping anything again.
func TestArchivedStreamOpensAsACase(t *testing.T) {
	addr := vlogstest.Start(t)
	url, ref := shipSample(t, "credential-theft")
	archive := filepath.Join(t.TempDir(), "archive")
	code, out, errOut := cordon("archive", "--nats", url, "--incident", archive, "--store", addr, "--drain", "--json")
	if code != 0 {
		t.Fatalf("archive: exit %d\n%s%s", code, out, errOut)
	}
	all := eventCount(t, ref)
	docs := jsonLines(t, "archive --json", out)
	if len(docs) != 1 || docs[0]["added"] != float64(all) {
		t.Fatalf("archive --json: want %d events added:\n%s", all, out)
	}
	onStore(t, archive)
	// again: nothing left to read, nothing added
	code, out, errOut = cordon("archive", "--nats", url, "--incident", archive, "--drain", "--json")
	if docs := jsonLines(t, "archive --json", out); code != 0 || len(docs) != 1 || docs[0]["added"] != 0.0 {
		t.Fatalf("archive again: exit %d\n%s%s", code, out, errOut)
	}

	c := filepath.Join(t.TempDir(), "case")
	code, out, errOut = cordon("archive", "case", archive, "--incident", c, "--json")
	if docs := jsonLines(t, "archive case --json", out); code != 0 || len(docs) != 1 || docs[0]["events"] != float64(all) {
		t.Fatalf("archive case: exit %d\n%s%s", code, out, errOut)
	}
	onStore(t, c)
	if got := eventCount(t, c); got != all {
		t.Errorf("the case on the archive holds %d events, the ingest %d", got, all)
	}
	if got, want := findingLines(t, c, nil), findingLines(t, ref, nil); len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("findings of the case on the archive:\n%s\nwant (the ingest's):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if code, _, errOut := cordon("archive", "case", archive, "--incident", archive); code == 0 {
		t.Errorf("a case made in the archive's own folder: %s", errOut)
	}
}

// An archive killed while it writes, then run again, holds every event
// shipped exactly once: what was stored and not yet acknowledged comes
// again and is skipped by id, what was not stored comes again and is.
func TestArchiveKilledAndRestartedLosesNothingAndKeepsNothingTwice(t *testing.T) {
	const n = 20000
	addr := vlogstest.Start(t)
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLedger(t, src, n)
	url := fleettest.Server(t).ClientURL()
	if code, out, errOut := cordon("ship", "--nats", url, "--state", filepath.Join(t.TempDir(), "ship.json"), src); code != 0 {
		t.Fatalf("ship: exit %d\n%s%s", code, out, errOut)
	}
	archive := filepath.Join(t.TempDir(), "archive")
	child := cordonProcess(t, "archive", "--nats", url, "--incident", archive, "--store", addr, "--batch", "500", "--ack-wait", "2s")
	// the file is written before a batch goes out (the store's intent to
	// write), and holds a checkpoint once one is stored
	waitFor(t, "a batch stored", func() bool {
		b, err := os.ReadFile(filepath.Join(archive, "victorialogs-state.json"))
		var doc struct {
			State map[string][]byte `json:"state"`
		}
		return err == nil && json.Unmarshal(b, &doc) == nil && len(doc.State) > 0
	})
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	before := eventCount(t, archive)
	if before == 0 || before >= n {
		t.Fatalf("killed with %d of %d events stored: the restart would prove nothing", before, n)
	}
	code, out, errOut := cordon("archive", "--nats", url, "--incident", archive, "--ack-wait", "2s", "--drain", "--json")
	if code != 0 {
		t.Fatalf("archive after the kill: exit %d\n%s%s", code, out, errOut)
	}
	if got := eventCount(t, archive); got != n {
		t.Errorf("after a kill with %d stored and a restart: %d events, want %d\n%s", before, got, n, out)
	}
	if docs := jsonLines(t, "archive --json", out); len(docs) != 1 || docs[0]["added"] != float64(n-before) {
		t.Errorf("the restart added %v events, want %d:\n%s", docs[0]["added"], n-before, out)
	}
}
