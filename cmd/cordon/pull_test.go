package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/cordon-ir/cordon/watch"
)

// findingLines are cordon findings --json on ws as "id severity agent
// matches events", sorted, those of keep only (nil: all).
func findingLines(t *testing.T, ws string, keep []string) []string {
	t.Helper()
	code, out, errOut := cordon("findings", "--incident", ws, "--json")
	if code != 0 {
		t.Fatalf("findings on %s: exit %d: %s", ws, code, errOut)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m watch.Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if keep != nil && !slices.Contains(keep, m.Agent) {
			continue
		}
		lines = append(lines, strings.Join([]string{m.ID, m.Severity, m.Agent, m.Detector, strings.Join(m.Events, ",")}, " "))
	}
	sort.Strings(lines)
	return lines
}

// eventsOf are cordon search --json on ws of agent's events as
// "id raw", sorted.
func eventsOf(t *testing.T, ws, agent string) []string {
	t.Helper()
	code, out, errOut := cordon("search", "--incident", ws, "--json", "--limit", "100000", "agent:"+agent)
	if code != 0 {
		t.Fatalf("search on %s: exit %d: %s", ws, code, errOut)
	}
	var lines []string
	for _, d := range jsonLines(t, "search --json", out) {
		id, _ := d["id"].(string)
		raw, _ := d["raw"].(string)
		lines = append(lines, id+" "+raw)
	}
	sort.Strings(lines)
	return lines
}

// peerDetector judges an agent against the other agents it sees: its
// findings on a share of the agents are not the whole's (docs/fleet.md).
const peerDetector = "destination-expansion"

// A sample shipped, then pulled for some of its agents, is a workspace
// whose findings are those an ingest of the sample's files finds for
// those agents (same ids, severities, evidence; a detector that compares
// an agent with its peers aside), whose events of those agents are the
// ingest's (same ids, raw records byte for byte), and whose journal says
// where the evidence came from. Pulled for all its agents, it finds what
// the ingest finds, every detector included.
func TestPullBuildsTheWorkspaceAnIngestWouldForThoseAgents(t *testing.T) {
	for _, tc := range []struct {
		sample string
		agents []string
		all    bool // agents are every agent of the sample
	}{
		{"credential-theft", []string{"agent-12", "agent-9"}, false},
		{"created-workload", []string{"agent-60", "agent-61"}, false},
		{"shared-volume-token", []string{"agent-40"}, false},
		{"shared-volume-token", []string{"agent-40", "agent-41", "agent-42", "agent-43", "agent-44"}, true},
	} {
		t.Run(tc.sample+"/"+strings.Join(tc.agents, ","), func(t *testing.T) {
			sample := filepath.Join("..", "..", "sample-incidents", tc.sample)
			ref := t.TempDir()
			if code, _, errOut := cordon("ingest", "--incident", ref, sample); code != 0 {
				t.Fatalf("ingest: exit %d: %s", code, errOut)
			}
			want := findingLines(t, ref, tc.agents)
			if len(want) == 0 {
				t.Fatalf("no findings for %v in %s: the comparison would prove nothing", tc.agents, tc.sample)
			}

			url := fleettest.Server(t).ClientURL()
			if code, out, errOut := cordon("ship", "--nats", url, "--state", filepath.Join(t.TempDir(), "ship.json"), sample); code != 0 {
				t.Fatalf("ship: exit %d\n%s%s", code, out, errOut)
			}
			ws := filepath.Join(t.TempDir(), "pulled")
			code, out, errOut := cordon("pull", "--nats", url, "--agent", strings.Join(tc.agents, ","),
				"--since", "2000-01-01T00:00:00Z", "--incident", ws, "--json")
			if code != 0 {
				t.Fatalf("pull: exit %d\n%s%s", code, out, errOut)
			}
			docs := jsonLines(t, "pull --json", out)
			if len(docs) != 2 || docs[0]["selected"] == 0.0 || docs[1]["format"] != "cordon-event" {
				t.Fatalf("pull --json:\n%s", out)
			}

			got := findingLines(t, ws, nil)
			if !tc.all {
				got, want = without(got, peerDetector), without(want, peerDetector)
			}
			if !slices.Equal(got, want) {
				t.Errorf("findings of the pulled workspace:\n%s\nwant (the ingest's, for %v):\n%s", strings.Join(got, "\n"), tc.agents, strings.Join(want, "\n"))
			}
			for _, a := range tc.agents {
				got, want := eventsOf(t, ws, a), eventsOf(t, ref, a)
				if len(want) == 0 || !slices.Equal(got, want) {
					t.Errorf("%s: %d events pulled, the ingest holds %d; they differ", a, len(got), len(want))
				}
			}
			if n, all := eventCount(t, ws), eventCount(t, ref); n > all || !tc.all && n >= all {
				t.Errorf("the pulled workspace holds %d events, the whole sample %d", n, all)
			}

			journal, err := os.ReadFile(filepath.Join(ws, "journal.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(journal), `"from":"nats stream CORDON_EVENTS up to sequence`) {
				t.Errorf("the journal does not say where the evidence came from:\n%s", journal)
			}
			if code, out, errOut := cordon("evidence", "verify", "--incident", ws); code != 0 {
				t.Errorf("evidence verify on the pulled workspace: exit %d\n%s%s", code, out, errOut)
			}
			// the report reads it as any case, and names the agents' findings
			code, out, errOut = cordon("report", "--incident", ws, "--format", "md")
			if code != 0 || !strings.Contains(out, tc.agents[0]) {
				t.Errorf("report on the pulled workspace: exit %d\n%.2000s%s", code, out, errOut)
			}
		})
	}
}

// without leaves out the finding lines of detector.
func without(lines []string, detector string) []string {
	var out []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) < 4 || f[3] != detector {
			out = append(out, l)
		}
	}
	return out
}

// cordon pull --follow: the ledger shipped, the pull started, then the
// proxy and sensor logs shipped while it follows; interrupted, the
// workspace holds what a pull of the whole stream would: the ingest's
// findings and events for the agent.
func TestPullFollowKeepsPulling(t *testing.T) {
	sample := filepath.Join("..", "..", "sample-incidents", "shared-volume-token")
	agents := []string{"agent-40"}
	ref := t.TempDir()
	if code, _, errOut := cordon("ingest", "--incident", ref, sample); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	want := without(findingLines(t, ref, agents), peerDetector)

	url := fleettest.Server(t).ClientURL()
	state := filepath.Join(t.TempDir(), "ship.json")
	if code, out, errOut := cordon("ship", "--nats", url, "--state", state, filepath.Join(sample, "ledger.jsonl")); code != 0 {
		t.Fatalf("ship: exit %d\n%s%s", code, out, errOut)
	}
	ws := filepath.Join(t.TempDir(), "pulled")
	child := cordonProcess(t, "pull", "--nats", url, "--agent", "agent-40", "--since", "2000-01-01T00:00:00Z", "--incident", ws, "--follow")
	defer child.Process.Kill()
	lines := func() int {
		files, _ := filepath.Glob(filepath.Join(ws, "received", "pull-*.jsonl"))
		if len(files) != 1 {
			return 0
		}
		b, _ := os.ReadFile(files[0])
		return strings.Count(string(b), "\n")
	}
	waitFor(t, "the ledger pulled", func() bool { return lines() > 0 })
	first := lines()
	// and ingested by a round of the follow (its checkpoint in sources.json)
	waitFor(t, "a first round of the follow", func() bool {
		b, err := os.ReadFile(filepath.Join(ws, "sources.json"))
		return err == nil && strings.Contains(string(b), "pull-")
	})
	if code, out, errOut := cordon("ship", "--nats", url, "--state", state, filepath.Join(sample, "proxy"), filepath.Join(sample, "sensor")); code != 0 {
		t.Fatalf("ship: exit %d\n%s%s", code, out, errOut)
	}
	// until the file stops growing
	last, still := -1, 0
	waitFor(t, "the rest pulled", func() bool {
		n := lines()
		if n == last && n > first {
			still++
		} else {
			still = 0
		}
		last = n
		return still >= 10
	})
	// read by the follow itself, before it is stopped
	waitFor(t, "the follow to read the whole file", func() bool {
		b, err := os.ReadFile(filepath.Join(ws, "sources.json"))
		if err != nil {
			return false
		}
		var cks []struct{ Line int }
		return json.Unmarshal(b, &cks) == nil && len(cks) == 1 && cks[0].Line == last+1
	})
	if err := child.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// stopped by SIGINT: exit 130, as every command
	if err := child.Wait(); child.ProcessState.ExitCode() != 130 {
		t.Fatalf("pull --follow: %v\n%s", err, child.Stdout)
	}
	t.Logf("pull --follow said:\n%s", child.Stdout)
	if got := without(findingLines(t, ws, nil), peerDetector); !slices.Equal(got, want) {
		t.Errorf("findings of the followed workspace:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := eventsOf(t, ws, "agent-40"), eventsOf(t, ref, "agent-40"); !slices.Equal(got, want) {
		t.Errorf("agent-40: %d events pulled, the ingest holds %d", len(got), len(want))
	}
}
