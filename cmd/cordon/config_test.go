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

// config check refuses an unknown key and an unknown key binding, each
// as file:line:col, and exits non-zero (issue 33).
func TestConfigCheckNamesWhereEachProblemStands(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	path := filepath.Join(dir, "cordon", "config.yaml")
	os.MkdirAll(filepath.Dir(path), 0o700)
	for _, c := range []struct{ body, want string }{
		{"aliases:\n  stop: step done contain.stop\nalises:\n  x: y\n", path + `:3:1: unknown key "alises" (did you mean aliases?)`},
		{"keys:\n  search: [\"/\"]\n  next_denail: [\"]\"]\n", path + `:3:3: keys: no binding "next_denail" (did you mean next_denial?)`},
		{"palette:\n  acent: \"33\"\n", path + `:2:3: palette: no role "acent" (did you mean accent?)`},
	} {
		os.WriteFile(path, []byte(c.body), 0o600)
		code, out, errOut := cordon("config", "check")
		if code == exitOK || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q, want non-zero and %q", c.body, code, out, errOut, c.want)
		}
	}
	os.WriteFile(path, []byte("keys:\n  search: [\"/\", \"ctrl+f\"]\n  next_denial: [\"]\"]\npalette:\n  accent: \"33\"\n"), 0o600)
	if code, out, errOut := cordon("config", "check"); code != exitOK || !strings.Contains(out, "2 key remaps") {
		t.Errorf("a good file: exit %d, %q %q", code, out, errOut)
	}
}
