package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A store address that is not victorialogs://host:port is a usage error
// before any folder is made.
func TestIngestRefusesABadStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "case")
	for _, addr := range []string{"http://127.0.0.1:9428", "victorialogs://nohost", "opensearch://h:9200"} {
		code, _, errOut := cordon("ingest", "--incident", dir, "--store", addr, filepath.Join("..", "..", "sample-incidents", "egress-probe-exfil"))
		if code == 0 || !strings.Contains(errOut, "--store") {
			t.Errorf("--store %s: exit %d, %q", addr, code, errOut)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused store left a workspace: %v", err)
	}
}
