package fleet

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/ingest/parse"
)

const k8sReceived = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a1","stage":"RequestReceived","verb":"get","requestURI":"/api/v1/namespaces/agent-evals/secrets/aws","requestReceivedTimestamp":"2026-10-14T11:20:01.5Z","stageTimestamp":"2026-10-14T11:20:01.5Z","user":{"username":"u"},"sourceIPs":["198.51.100.23"],"objectRef":{"resource":"secrets","namespace":"agent-evals","name":"aws"}}`

// A request's earlier stage shipped alone, and its last stage shipped by a
// later run: the stream keeps both (their keys differ, their id not), and
// the reader delivers both, the earlier first.
func TestShipLaterStageOfARequestIsNotTakenForACopy(t *testing.T) {
	b := newBus(t, StreamConfig{})
	dir := t.TempDir()
	path, state := filepath.Join(dir, "k8s-audit.jsonl"), filepath.Join(dir, "s.json")
	if err := os.WriteFile(path, []byte(k8sReceived+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := b.ship(t, state, []string{path}, ShipOptions{}); res.Acked != 1 {
		t.Fatalf("first ship acked %d", res.Acked)
	}
	complete := strings.Replace(strings.Replace(k8sReceived, "RequestReceived", "ResponseComplete", 1),
		`"stageTimestamp":"2026-10-14T11:20:01.5Z"`, `"stageTimestamp":"2026-10-14T11:20:02Z","responseStatus":{"code":200}`, 1)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(complete + "\n")
	f.Close()
	if res := b.ship(t, state, []string{path}, ShipOptions{}); res.Acked != 1 || res.Duplicates != 0 {
		t.Fatalf("second ship acked %d (%d as duplicates), want 1 new", res.Acked, res.Duplicates)
	}
	got, _ := b.read(t, ReaderConfig{Durable: "stages"})
	if len(got) != 1 {
		t.Fatalf("deliveries for %d ids, want one request", len(got))
	}
	for _, ds := range got {
		if len(ds) != 2 {
			t.Fatalf("%d deliveries, want the two stages", len(ds))
		}
		staged := func(d Delivery) bool {
			return slices.ContainsFunc(d.Event.Tags, func(t string) bool { return strings.HasPrefix(t, parse.TagStage) })
		}
		if !staged(ds[0]) || staged(ds[1]) || ds[1].Event.Status != "200" {
			t.Fatalf("stages delivered %v then %v (status %q)", ds[0].Event.Tags, ds[1].Event.Tags, ds[1].Event.Status)
		}
	}
}
