package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/cordon-ir/cordon/watch"
	"github.com/cordon-ir/cordon/watch/watchtest"
)

// TestReceiptsVerify: a chain of receipts verifies; one appended with
// another receipt's hash as its previous breaks it, and verify says where
// and exits 7.
func TestReceiptsVerify(t *testing.T) {
	url := fleettest.Server(t).ClientURL()
	nc, js, err := fleet.Connect(url, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	if err := watch.EnsureReceiptsStream(ctx, js, watch.DefaultReceiptsStream); err != nil {
		t.Fatal(err)
	}
	publish := func(r watch.Receipt) string {
		body, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := js.Publish(ctx, watch.ReceiptSubject("w"), body); err != nil {
			t.Fatal(err)
		}
		return watch.Hash(body)
	}
	prev, first := "", ""
	for i := uint64(1); i <= 3; i++ {
		rec := watch.Receipt{Schema: "receipt/1", Watcher: "w", Seq: i, Prev: prev, Subject: "cordon.verdict.agent-9"}
		rec.Verdict.Recommendation = "refuse"
		prev = publish(rec)
		if i == 1 {
			first = prev
		}
	}
	code, out, errOut := cordon("receipts", "verify", "--nats", url, "--watcher", "w")
	if code != 0 || !strings.Contains(out, "3 receipts of w") || !strings.Contains(out, "0 breaks") {
		t.Fatalf("verify a whole chain: exit %d\n%s%s", code, out, errOut)
	}
	forged := watch.Receipt{Schema: "receipt/1", Watcher: "w", Seq: 4, Prev: first, Subject: "cordon.verdict.agent-9"}
	forged.Verdict.Recommendation = "allow"
	publish(forged)
	code, out, errOut = cordon("receipts", "verify", "--nats", url, "--watcher", "w", "--json")
	docs := jsonLines(t, "receipts verify --json", out)
	if code != exitTampered || len(docs) != 1 || docs[0]["breaks"] == nil {
		t.Errorf("verify a broken chain: exit %d, want %d\n%s%s", code, exitTampered, out, errOut)
	}
}

// TestReceiptsFind: the receipts a watcher wrote are found by request id,
// verdict id and agent, and say the answer given and why; a request
// nobody asked finds nothing (exit 1).
func TestReceiptsFind(t *testing.T) {
	_, url, _, stop := watchtest.Verdicts(t, "../../sample-incidents/credential-theft", watch.VerdictConfig{Name: "w1"})
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var thief watch.Verdict
	for i, agent := range []string{"agent-12", "agent-12", "agent-9"} {
		body, _ := json.Marshal(watch.VerdictRequest{ID: fmt.Sprintf("gw-%d", i)})
		m, err := nc.Request(watch.VerdictSubject(agent), body, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if err := json.Unmarshal(m.Data, &thief); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := stop(); err != nil { // the receipts queued are written
		t.Fatal(err)
	}
	code, out, errOut := cordon("receipts", "find", "--nats", url, "--watcher", "w1", "--request", "gw-1")
	if code != 0 || !strings.Contains(out, "REFUSE for agent-12") || !strings.Contains(out, "request gw-1") ||
		!strings.Contains(out, "credential-misuse") || strings.Count(out, "receipt ") != 1 {
		t.Fatalf("find --request gw-1: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cordon("receipts", "find", "--nats", url, "--watcher", "w1", "--verdict", thief.VerdictID, "--json")
	docs := jsonLines(t, "receipts find --json", out)
	if code != 0 || len(docs) != 1 || docs[0]["verdict"].(map[string]any)["verdict_id"] != thief.VerdictID {
		t.Fatalf("find --verdict: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = cordon("receipts", "find", "--nats", url, "--watcher", "w1", "--agent", "agent-12", "--json")
	if docs := jsonLines(t, "receipts find --agent", out); code != 0 || len(docs) != 2 {
		t.Fatalf("find --agent agent-12: exit %d, %d receipts, want 2\n%s", code, len(docs), out)
	}
	if code, _, errOut := cordon("receipts", "find", "--nats", url, "--watcher", "w1", "--request", "nobody"); code != exitError || !strings.Contains(errOut, "no receipt") {
		t.Fatalf("find a request nobody asked: exit %d %s", code, errOut)
	}
}
