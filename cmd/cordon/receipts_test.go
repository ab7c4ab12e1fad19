package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/cordon-ir/cordon/watch"
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
