package main

import (
	"bufio"
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/cordon-ir/cordon/watch"
	"github.com/nats-io/nats.go/jetstream"
)

// cordon watch, on a stream cordon ship filled, publishes the findings
// cordon findings --json gives on a workspace cordon ingest made of the
// same sample: the same ids, severities and evidence.
func TestWatchPublishesWhatFindingsFinds(t *testing.T) {
	sample := filepath.Join("..", "..", "sample-incidents", "credential-theft")
	ws := t.TempDir()
	if code, _, errOut := cordon("ingest", "--incident", ws, sample); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	code, out, errOut := cordon("findings", "--incident", ws, "--json")
	if code != 0 {
		t.Fatalf("findings: exit %d: %s", code, errOut)
	}
	var want []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m watch.Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		want = append(want, m.ID+" "+m.Severity+" "+strings.Join(m.Events, ","))
	}
	if len(want) == 0 {
		t.Fatal("cordon findings finds nothing in the sample: the comparison would prove nothing")
	}
	sort.Strings(want)

	url := fleettest.Server(t).ClientURL()
	if code, out, errOut := cordon("ship", "--nats", url, "--state", filepath.Join(t.TempDir(), "ship.json"), sample); code != 0 {
		t.Fatalf("ship: exit %d\n%s%s", code, out, errOut)
	}
	child := cordonProcess(t, "watch", "--nats", url, "--durable", "cli", "--lateness", "2s", "--idle", "500ms", "--json")
	defer child.Process.Kill()
	nc, js, err := fleet.Connect(url, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var got []string
	deadline := time.Now().Add(60 * time.Second)
	for strings.Join(got, "\n") != strings.Join(want, "\n") {
		if time.Now().After(deadline) {
			t.Fatalf("after 60s cordon watch published\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
		got = foldFindings(t, js)
	}
	// the worker's status: one worker, holding the one partition, having
	// read events (said every third of the lease)
	var g watch.GroupStatus
	waitFor(t, "watch --status to show the worker", func() bool {
		var code int
		code, out, errOut = cordon("watch", "--status", "--nats", url, "--durable", "cli", "--json")
		if code != 0 {
			t.Fatalf("watch --status: exit %d\n%s%s", code, out, errOut)
		}
		g = watch.GroupStatus{}
		if err := json.Unmarshal([]byte(out), &g); err != nil {
			t.Fatalf("watch --status --json: %v\n%s", err, out)
		}
		return len(g.Workers) == 1 && len(g.Workers[0].Partitions) == 1 && g.Workers[0].Events > 0 && g.Leases[0] == g.Workers[0].Worker
	})
	code, out, _ = cordon("watch", "--status", "--nats", url, "--durable", "cli")
	if code != 0 || !strings.Contains(out, "EVENTS/S") || !strings.Contains(out, g.Workers[0].Worker) {
		t.Errorf("watch --status: exit %d\n%s", code, out)
	}
	if err := child.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	// --json: each batch that changed something, then the totals
	s := child.Stdout.(interface{ String() string }).String() // stdout and stderr
	var objs []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "{") {
			objs = append(objs, l)
		}
	}
	docs := jsonLines(t, "cordon watch --json", strings.Join(objs, "\n"))
	if last := docs[len(docs)-1]; len(docs) < 2 || last["published"].(float64) < float64(len(want)) || last["events"] == 0.0 || docs[0]["created"] == nil {
		t.Errorf("cordon watch said:\n%s", s)
	}
}

// foldFindings reads the findings stream to its end: the last state of
// each finding not withdrawn, as "id severity events", sorted.
func foldFindings(t *testing.T, js jetstream.JetStream) []string {
	t.Helper()
	ctx := context.Background()
	s, err := js.Stream(ctx, watch.DefaultFindingsStream)
	if err != nil {
		return nil // not made yet
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]string{}
	for seq := info.State.FirstSeq; info.State.Msgs > 0 && seq <= info.State.LastSeq; seq++ {
		raw, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		var m watch.Message
		if err := json.Unmarshal(raw.Data, &m); err != nil {
			t.Fatal(err)
		}
		if m.Change == watch.Withdrawn {
			delete(last, m.ID)
			continue
		}
		last[m.ID] = m.ID + " " + m.Severity + " " + strings.Join(m.Events, ",")
	}
	var out []string
	for _, l := range last {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}
