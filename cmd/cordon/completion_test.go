package main

import (
	"strings"
	"testing"
)

// completion for a shell it has no script for exits 2 and lists the ones
// it has; a known shell still gets its script.
func TestCompletionUnknownShell(t *testing.T) {
	code, _, errOut := cordon("completion", "fish2")
	if code != exitUsage || !strings.Contains(errOut, `no completion for "fish2"`) || !strings.Contains(errOut, "bash, fish, powershell, zsh") {
		t.Errorf("completion fish2: exit %d %s", code, errOut)
	}
	if code, out, _ := cordon("completion", "bash"); code != 0 || !strings.Contains(out, "bash completion") {
		t.Errorf("completion bash: exit %d %.80s", code, out)
	}
}
