package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const badPlaybook = `id: bad
title: Bad
phases:
  - id: contain
    title: Contain
    steps:
      - id: contain.stop
        title: Stop
        layer: processes
        check:
          title: gone
          expect: none
          after: session
          queries: ['+credentail:{{credential}}']
`

func TestPlaybookLintBadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte(badPlaybook), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cordon("playbook", "lint", path)
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		path + `:9:16: layer "processes" is not one of`,
		path + `:13:18: after "session": want a time variable`,
		path + `:14:21: a check query "+credentail:{{credential}}": {{credential}} on credentail`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q\nwant prefix %q", i+1, lines[i], w)
		}
	}
	if !strings.Contains(errOut, "3 problems") {
		t.Errorf("stderr %q", errOut)
	}
}

func TestPlaybookLintBuiltinAndMissingFile(t *testing.T) {
	code, out, errOut := cordon("playbook", "lint", filepath.Join("..", "..", "playbook", "builtin", "agent-containment.yaml"))
	if code != exitOK || strings.TrimSpace(out) != "ok" {
		t.Errorf("builtin: exit %d, %q %q", code, out, errOut)
	}
	code, out, _ = cordon("playbook", "lint", filepath.Join(t.TempDir(), "nope.yaml"))
	if code != exitUsage || !strings.Contains(out, "nope.yaml: cannot read") {
		t.Errorf("missing file: exit %d, %q", code, out)
	}
	if code, _, _ := cordon("playbook", "lint"); code != exitUsage {
		t.Errorf("no file: exit %d", code)
	}
	if code, _, _ := cordon("playbook", "frobnicate"); code != exitUsage {
		t.Errorf("unknown subcommand: exit %d", code)
	}
}

func TestPlaybookShow(t *testing.T) {
	code, out, errOut := cordon("playbook", "show")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"agent-containment — Autonomous agent containment",
		"1. Detect (detect)",
		"4. Contain (contain)",
		"7. Review (review)",
		"sets contained_at",
		"layer background-processes",
		"check: No process of the agent acted after containment (expect none after contained_at)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show: no %q in\n%s", want, out)
		}
	}
	code, out, _ = cordon("playbook", "show", "--yaml")
	if code != exitOK || !strings.HasPrefix(strings.TrimLeft(out, "# \n"), "The playbook cordon ships") {
		t.Errorf("show --yaml: exit %d, %.80q", code, out)
	}
	path := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(path, []byte(badPlaybook), 0o644)
	if code, out, _ := cordon("playbook", "show", path); code != exitUsage || !strings.Contains(out, path+":9:16:") {
		t.Errorf("show bad file: exit %d, %q", code, out)
	}
}
