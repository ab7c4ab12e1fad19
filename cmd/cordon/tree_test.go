package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A mistyped command or flag is answered in two lines, the second naming
// the nearest one, and nothing else: not the whole help, not twice.
func TestUnknownCommandOrFlagIsTwoLinesWithASuggestion(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		first, fix string
	}{
		{[]string{"serch", "x"}, `unknown command "serch"`, "did you mean search?"},
		{[]string{"search", "--incident", "x", "--limt", "3"}, "unknown flag --limt for cordon search", "did you mean --limit?"},
		{[]string{"search", "-limt", "3"}, "unknown flag -limt for cordon search", "did you mean --limit?"},
		{[]string{"findings", "--min-sev", "high"}, "unknown flag --min-sev", "did you mean --min-severity?"},
		{[]string{"journal", "verify", "--zzz"}, "unknown flag --zzz for cordon journal", "cordon journal --help lists its flags"},
		{[]string{"playbook", "lint", "--yaml"}, "unknown flag --yaml for cordon playbook lint", ""},
	} {
		code, out, errOut := cordon(tc.args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != exitUsage || out != "" || len(lines) != 2 || !strings.Contains(lines[0], tc.first) || !strings.Contains(lines[1], tc.fix) {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s", tc.args, code, out, errOut)
		}
	}
}

func TestCountFlagsRefuseZeroAndNegatives(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"search", "--incident", dir, "--limit", "0", "x"},
		{"search", "--incident", dir, "--limit", "-5", "x"},
		{"search", "--incident", dir, "--limit=-1", "x"},
		{"stats", "--incident", dir, "--top", "0"},
	} {
		code, _, errOut := cordon(args...)
		if code != exitUsage || !strings.Contains(errOut, "want 1 or more") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

func TestVersionTextAndJSON(t *testing.T) {
	code, out, _ := cordon("version")
	if code != 0 || !strings.HasPrefix(out, "cordon ") || !strings.Contains(out, runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("version: %d %q", code, out)
	}
	code, out, _ = cordon("version", "--json")
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || v.Version == "" || v.Go != runtime.Version() {
		t.Errorf("version --json: %d %q %v", code, out, err)
	}
	if code, _, _ := cordon("version", "extra"); code != exitUsage {
		t.Errorf("version extra: exit %d", code)
	}
}

// The completion scripts come from the same tree as the help: bash reads
// the script without a syntax error, and every shell's names the commands.
func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, errOut := cordon("completion", sh)
		if code != 0 || !strings.Contains(out, "cordon") {
			t.Fatalf("completion %s: %d %s", sh, code, errOut)
		}
		if sh != "bash" {
			continue
		}
		if _, err := exec.LookPath("bash"); err != nil {
			t.Skip("no bash")
		}
		cmd := exec.Command("bash", "-n")
		cmd.Stdin = strings.NewReader(out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("bash -n: %v\n%s", err, b)
		}
	}
	// cobra's completion protocol: the commands that start with "se"
	_, out, _ := cordon("__complete", "se")
	if !strings.Contains(out, "search") || !strings.Contains(out, "serve") {
		t.Errorf("__complete se: %q", out)
	}
	_, out, _ = cordon("__complete", "search", "--li")
	if !strings.Contains(out, "--limit") {
		t.Errorf("__complete search --li: %q", out)
	}
	_, out, _ = cordon("__complete", "search", "--sort", "")
	if !strings.Contains(out, "-time\n") || !strings.Contains(out, "score\n") {
		t.Errorf("__complete search --sort: %q", out)
	}
	_, out, _ = cordon("__complete", "journal", "")
	if !strings.Contains(out, "verify\n") {
		t.Errorf("__complete journal: %q", out)
	}
}

func TestManPagesPerCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1")
	if code, _, errOut := cordon("man", dir); code != 0 {
		t.Fatalf("man: %s", errOut)
	}
	for _, page := range []string{"cordon.1", "cordon-search.1", "cordon-journal.1", "cordon-playbook-lint.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil || !strings.Contains(string(b), ".TH ") {
			t.Errorf("%s: %v", page, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "cordon-search.1"))
	if !strings.Contains(string(b), "limit") {
		t.Errorf("cordon-search.1 does not list --limit")
	}
}

// Help for one command goes to stdout and exits 0, by flag or by help.
func TestCommandHelp(t *testing.T) {
	for _, args := range [][]string{{"search", "--help"}, {"search", "-h"}, {"help", "search"}} {
		code, out, _ := cordon(args...)
		if code != 0 || !strings.HasPrefix(out, "usage: cordon search --incident DIR") || !strings.Contains(out, "--limit N") {
			t.Errorf("%v: %d %q", args, code, out)
		}
	}
	code, out, _ := cordon("help")
	if code != 0 || !strings.Contains(out, "Exit codes:") || !strings.Contains(out, "cordon completion") {
		t.Errorf("help: %d", code)
	}
}
