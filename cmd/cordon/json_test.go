package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command that prints something takes --json, but for those whose
// output is a console or a file, or is already a chosen format.
func TestEveryPrintingCommandTakesJSON(t *testing.T) {
	exempt := map[string]string{
		"cordon open": "a console", "cordon serve": "a console", "cordon man": "writes files",
		"cordon report": "--format json", "cordon export": "its formats are JSON",
		"cordon playbook": "only names its subcommands", "cordon rules": "only names its subcommand",
		"cordon eval": "only names its subcommands", "cordon rules export": "its output is Sigma YAML",
	}
	root := newRoot(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			path := sub.CommandPath()
			if sub.Hidden || sub.Name() == "help" || strings.HasPrefix(path, "cordon completion") {
				continue
			}
			if _, ok := exempt[path]; !ok && sub.Runnable() && sub.Flags().Lookup("json") == nil {
				t.Errorf("%s has no --json", path)
			}
			walk(sub)
		}
	}
	walk(root)
}

func jsonLines(t *testing.T, what, out string) []map[string]any {
	t.Helper()
	var docs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %v in %q", what, err, line)
		}
		docs = append(docs, m)
	}
	return docs
}

func TestJSONOfTheCommandsThatGainedIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "incident")
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLedger(t, src, 40)
	code, out, errOut := cordon("ingest", "--incident", dir, "--json", src)
	if code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	if d := jsonLines(t, "ingest", out); len(d) != 1 || d[0]["new"] != 40.0 || d[0]["format"] != "cordon-ledger" || d[0]["first"] == nil {
		t.Errorf("ingest --json: %v", d)
	}
	_, out, _ = cordon("formats", "--json")
	if d := jsonLines(t, "formats", out); len(d) < 5 || d[0]["format"] == "" {
		t.Errorf("formats --json: %v", d)
	}
	_, out, _ = cordon("note", "--incident", dir, "--json", "looked", "at", "agent-3")
	if d := jsonLines(t, "note", out); len(d) != 1 || d[0]["text"] != "looked at agent-3" {
		t.Errorf("note --json: %v", d)
	}
	_, out, _ = cordon("step", "--incident", dir, "--json", "start", "triage.grant")
	if d := jsonLines(t, "step", out); len(d) != 1 || d[0]["step"] != "triage.grant" {
		t.Errorf("step --json: %s", out)
	}
	_, out, _ = cordon("attribute", "--incident", dir, "--json")
	if d := jsonLines(t, "attribute", out); len(d) != 1 || d[0]["coverage"] == nil {
		t.Errorf("attribute --json: %s", out)
	}
	_, out, _ = cordon("subject", "--incident", dir, "--json", "agent-3")
	if d := jsonLines(t, "subject", out); len(d) != 1 || !strings.Contains(out, `"subject":["agent-3"]`) {
		t.Errorf("subject --json: %s", out)
	}
	_, out, _ = cordon("playbook", "show", "--json")
	if d := jsonLines(t, "playbook show", out); len(d) != 1 || len(d[0]["phases"].([]any)) < 5 {
		t.Errorf("playbook show --json: %s", out)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("id: x\nphases: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = cordon("playbook", "lint", "--json", bad)
	if d := jsonLines(t, "playbook lint", out); code != exitUsage || len(d) != 1 || len(d[0]["problems"].([]any)) == 0 {
		t.Errorf("playbook lint --json: %d %s", code, out)
	}
}
