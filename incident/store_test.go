package incident_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/evidence/vlogs/vlogstest"
	"github.com/cordon-ir/cordon/incident"
)

// A case whose events live in VictoriaLogs: the workspace records the
// store, a reopen reads the same evidence and findings the index gives,
// a second ingest adds nothing, and another store is refused.
func TestWorkspaceOnVictoriaLogs(t *testing.T) {
	ctx := context.Background()
	addr := vlogstest.Start(t)
	src := filepath.Join("..", "sample-incidents", "egress-probe-exfil")
	dir := filepath.Join(t.TempDir(), "case")

	ws, err := incident.Create(dir, incident.Store(addr))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Ingest(ctx, []string{src}, incident.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if ws.StoreAddr() != addr {
		t.Errorf("StoreAddr = %q, want %q", ws.StoreAddr(), addr)
	}
	ws.Close()
	if _, err := os.Stat(filepath.Join(dir, "index.bleve")); !os.IsNotExist(err) {
		t.Errorf("an index was made in the folder: %v", err)
	}

	local, err := incident.Create(filepath.Join(t.TempDir(), "local"))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if _, err := local.Ingest(ctx, []string{src}, incident.IngestOptions{}); err != nil {
		t.Fatal(err)
	}

	again, err := incident.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := again.Ingest(ctx, []string{src}, incident.IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.New != 0 {
			t.Errorf("a second ingest of %s stored %d events again", r.Path, r.New)
		}
	}
	again.Close()
	if _, err := incident.Create(dir, incident.Store("victorialogs://127.0.0.1:1")); !errors.Is(err, incident.ErrStore) {
		t.Errorf("a workspace reopened on another store: %v, want ErrStore", err)
	}

	ro, err := incident.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if got, want := ro.Counts().Total, local.Counts().Total; got != want || got == 0 {
		t.Errorf("reopened on VictoriaLogs: %d events, the index holds %d", got, want)
	}
	q := evidence.MustParse("agent:agent-7 decision:deny")
	a, err := ro.Search(ctx, evidence.Request{Query: q, Limit: 1000})
	b, err2 := local.Search(ctx, evidence.Request{Query: q, Limit: 1000})
	if err != nil || err2 != nil || a.Total != b.Total || a.Total == 0 {
		t.Errorf("search: %d on VictoriaLogs (%v), %d in the index (%v)", a.Total, err, b.Total, err2)
	}
	fa, err := ro.ScanWith(ctx, incident.FindingsOptions{})
	fb, err2 := local.ScanWith(ctx, incident.FindingsOptions{})
	if err != nil || err2 != nil || len(fa.Findings) != len(fb.Findings) || len(fa.Findings) == 0 {
		t.Errorf("findings: %d on VictoriaLogs (%v), %d on the index (%v)", len(fa.Findings), err, len(fb.Findings), err2)
	}

	if _, err := incident.Create(filepath.Join(t.TempDir(), "x"), incident.Store("opensearch://h:9200")); !errors.Is(err, incident.ErrStore) {
		t.Errorf("an unknown store: %v, want ErrStore", err)
	}
}

// writeConfig makes a private workspace folder holding cordon.yaml.
func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "case")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cordon.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// store: in cordon.yaml puts the case's events in that store, as --store
// does; the same store given both ways is fine, two different ones are
// refused, saying so.
func TestStoreFromConfig(t *testing.T) {
	ctx := context.Background()
	addr := vlogstest.Start(t)
	dir := writeConfig(t, "store: "+addr+"\n")
	ws, err := incident.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Ingest(ctx, []string{filepath.Join("..", "sample-incidents", "egress-probe-exfil")}, incident.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if ws.StoreAddr() != addr || ws.Counts().Total == 0 {
		t.Errorf("StoreAddr = %q with %d events, want %q and the sample's", ws.StoreAddr(), ws.Counts().Total, addr)
	}
	ws.Close()
	if _, err := os.Stat(filepath.Join(dir, "index.bleve")); !os.IsNotExist(err) {
		t.Errorf("an index was made in the folder: %v", err)
	}
	same, err := incident.Create(dir, incident.Store(addr))
	if err != nil {
		t.Fatalf("the same store in cordon.yaml and --store: %v", err)
	}
	same.Close()

	other := "victorialogs://127.0.0.1:1"
	_, err = incident.Create(writeConfig(t, "store: "+addr+"\n"), incident.Store(other))
	if !errors.Is(err, incident.ErrStore) || !strings.Contains(err.Error(), "disagree") || !strings.Contains(err.Error(), other) {
		t.Errorf("--store %s against cordon.yaml's %s: %v, want ErrStore saying they disagree", other, addr, err)
	}
	if _, err := incident.Create(writeConfig(t, "store: http://127.0.0.1:9428\n")); !errors.Is(err, incident.ErrConfig) {
		t.Errorf("store: with no victorialogs:// scheme: %v, want ErrConfig", err)
	}
}
