package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	code, out, errOut := cordon("config", "path")
	if want := filepath.Join(dir, "cordon", "config.yaml") + "\n"; code != 0 || out != want {
		t.Fatalf("config path: %d %q %q, want %q", code, out, errOut, want)
	}
	if code, out, _ := cordon("config", "check"); code != 0 || !strings.Contains(out, "not there") {
		t.Errorf("config check without a file: %d %q", code, out)
	}
	os.MkdirAll(filepath.Join(dir, "cordon"), 0o700)
	os.WriteFile(filepath.Join(dir, "cordon", "config.yaml"), []byte("alises: {}\n"), 0o600)
	if code, _, errOut := cordon("config", "check"); code == 0 || !strings.Contains(errOut, "alises") {
		t.Errorf("config check of a typo: %d %q", code, errOut)
	}
	if code, out, errOut := cordon("config"); !strings.Contains(out+errOut, "path") || !strings.Contains(out+errOut, "check") {
		t.Errorf("config alone: %d %q %q, want its subcommands named", code, out, errOut)
	}
	if code, out, _ := cordon("config", "path", "--json"); code != 0 || !strings.Contains(out, `"path":`) {
		t.Errorf("config path --json: %d %q", code, out)
	}
}
