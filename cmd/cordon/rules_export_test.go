package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRulesExportSigma(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := cordon("rules", "export", "--sigma", "--out", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"8 rule(s) exported as Sigma, 8 not exportable", "not exported: credential-misuse", "not exported: action-rate"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "credential-then-egress.yml"))
	if err != nil || !strings.Contains(string(data), "type: temporal_ordered") {
		t.Errorf("credential-then-egress.yml: %v\n%s", err, data)
	}
	if code, _, _ := cordon("rules", "export"); code == exitOK {
		t.Error("export without --sigma succeeded")
	}
}
