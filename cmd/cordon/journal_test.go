package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
)

// emptyWorkspace creates an incident workspace with an empty index.
func emptyWorkspace(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "incident")
	ws, err := incident.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()
	return dir
}

func TestJournalNoteListVerifyAndTamper(t *testing.T) {
	dir := emptyWorkspace(t)
	code, out, errOut := cordon("note", "--incident", dir, "--event", "ev-1", "agent-7", "read", "the", "vault")
	if code != 0 || out != "journal entry 1\n" {
		t.Fatalf("note: exit %d %q %q", code, out, errOut)
	}
	var o, e bytes.Buffer
	code = run([]string{"note", "--incident", dir, "--step", "contain.creds", "-"},
		strings.NewReader("log says: \x1b[2J\x1b]0;owned\x07 \u009b31m ignore previous instructions\n"), &o, &e)
	if code != 0 || o.String() != "journal entry 2\n" {
		t.Fatalf("note from stdin: exit %d %q %q", code, o.String(), e.String())
	}

	code, out, errOut = cordon("journal", "--incident", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("journal: exit %d, %d lines\n%s%s", code, len(lines), out, errOut)
	}
	me := journal.CurrentActor(journal.ViaCLI).Name
	if strings.Fields(lines[0])[0] != "1" || !strings.Contains(lines[0], me+" (cli)  note  event ev-1  agent-7 read the vault") {
		t.Errorf("entry 1 printed as %q", lines[0])
	}
	if !strings.Contains(lines[1], "step contain.creds") || !strings.Contains(lines[1], "ignore previous instructions") {
		t.Errorf("entry 2 printed as %q", lines[1])
	}
	if strings.ContainsAny(out, "\x1b\x07\u009b") {
		t.Errorf("journal printed raw control characters: %q", out)
	}

	code, out, _ = cordon("journal", "--incident", dir, "--json")
	stored, _ := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	if code != 0 || strings.ContainsAny(out, "\x1b\x07\u009b") {
		t.Fatalf("journal --json: exit %d %q", code, out)
	}
	jsonLines := strings.Split(strings.TrimSpace(out), "\n")
	storedLines := strings.Split(strings.TrimSpace(string(stored)), "\n")
	if len(jsonLines) != 2 || jsonLines[0] != storedLines[0] {
		t.Errorf("journal --json does not print the lines as stored:\n%s\n%s", out, stored)
	}
	for i, l := range jsonLines {
		var a, b any
		if json.Unmarshal([]byte(l), &a) != nil || json.Unmarshal([]byte(storedLines[i]), &b) != nil || !equalJSON(a, b) {
			t.Errorf("journal --json line %d is not the stored entry: %s", i+1, l)
		}
	}
	if code, out, _ = cordon("journal", "--incident", dir, "--type", "step_done,mark"); code != 0 || out != "" {
		t.Errorf("journal --type step_done: exit %d %q", code, out)
	}

	code, out, errOut = cordon("journal", "verify", "--incident", dir)
	if code != 0 || !strings.HasPrefix(out, "journal ok: 2 entries, head ") {
		t.Fatalf("verify: exit %d %q %q", code, out, errOut)
	}
	var last struct{ Hash string }
	json.Unmarshal([]byte(storedLines[1]), &last)
	if !strings.Contains(out, "head "+last.Hash[:12]) {
		t.Errorf("verify names head %q, want %s", out, last.Hash[:12])
	}

	// Someone rewrites what the first note said.
	os.WriteFile(filepath.Join(dir, "journal.jsonl"), bytes.Replace(stored, []byte("the vault"), []byte("nothing"), 1), 0o644)
	code, out, errOut = cordon("journal", "verify", "--incident", dir)
	if code != exitTampered || !strings.Contains(out+errOut, "line 1: entry 1 was edited") {
		t.Errorf("verify of an edited journal: exit %d %q %q", code, out, errOut)
	}
	code, out, _ = cordon("journal", "verify", "--incident", dir, "--json")
	var v journal.Verification
	if code != exitTampered || json.Unmarshal([]byte(out), &v) != nil || v.Problem == nil || v.Problem.Seq != 1 {
		t.Errorf("verify --json of an edited journal: exit %d %q", code, out)
	}

	// Someone deletes the last note: verify names it, and note refuses to
	// write over the traces.
	os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(storedLines[0]+"\n"), 0o644)
	code, out, errOut = cordon("journal", "verify", "--incident", dir)
	if code != exitTampered || !strings.Contains(out+errOut, "ends at entry 1 but journal.head records entry 2") {
		t.Errorf("verify after a deletion: exit %d %q %q", code, out, errOut)
	}
	if code, _, errOut = cordon("note", "--incident", dir, "more"); code != exitTampered {
		t.Errorf("note after a deletion: exit %d %q", code, errOut)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestNoteWhileAnIngestHoldsTheWorkspace(t *testing.T) {
	dir := emptyWorkspace(t)
	ws, err := incident.Create(dir) // holds the index lock, as an ingest does
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if code, _, _ := cordon("search", "--incident", dir, "x"); code != exitLocked {
		t.Fatalf("search while the workspace is held: exit %d, want %d", code, exitLocked)
	}
	if code, out, errOut := cordon("note", "--incident", dir, "seen while ingesting"); code != 0 {
		t.Fatalf("note while the workspace is held: exit %d %q %q", code, out, errOut)
	}
	child := cordonProcess(t, "note", "--incident", dir, "from another process")
	if err := child.Wait(); err != nil {
		t.Fatalf("note in another process while the workspace is held: %v\n%s", err, child.Stdout.(*bytes.Buffer))
	}
	code, out, errOut := cordon("journal", "--incident", dir)
	if code != 0 || !strings.Contains(out, "seen while ingesting") || !strings.Contains(out, "from another process") {
		t.Errorf("journal while the workspace is held: exit %d %q %q", code, out, errOut)
	}
	if code, out, _ := cordon("journal", "verify", "--incident", dir); code != 0 || !strings.HasPrefix(out, "journal ok: 2 entries") {
		t.Errorf("verify while the workspace is held: exit %d %q", code, out)
	}
}

func TestJournalAndNoteUsage(t *testing.T) {
	dir := emptyWorkspace(t)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"note", "--incident", dir}, exitUsage},
		{[]string{"note", "--incident", dir, " "}, exitUsage},
		{[]string{"note", "just text"}, exitUsage},
		{[]string{"note", "--incident", t.TempDir(), "not a workspace"}, exitNotFound},
		{[]string{"journal", "--incident", filepath.Join(dir, "absent")}, exitNotFound},
		{[]string{"journal", "--incident", dir, "verfiy"}, exitUsage},
		{[]string{"journal"}, exitUsage},
		{[]string{"journal", "verify", "--incident", dir}, exitOK}, // no journal yet
	} {
		if code, out, errOut := cordon(c.args...); code != c.code {
			t.Errorf("cordon %q: exit %d, want %d\n%s%s", c.args, code, c.code, out, errOut)
		}
	}
}

// TestJournalAnchorCommands: sign and anchor with a key outside the
// workspace; verify with the anchor and the allowed signers; a journal
// cut short with its head rewritten passes a plain verify and fails the
// anchored one with exit 7.
func TestJournalAnchorCommands(t *testing.T) {
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Fatal("ssh-keygen is needed (apt-get install openssh-client)")
	}
	dir := filepath.Join(t.TempDir(), "case")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "credential-theft")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	keys := t.TempDir()
	key := filepath.Join(keys, "id_ed25519")
	if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-C", "oncall@example.org", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	pub, _ := os.ReadFile(key + ".pub")
	allowed := filepath.Join(keys, "allowed_signers")
	os.WriteFile(allowed, []byte("oncall@example.org "+string(pub)), 0o600)
	anchors := filepath.Join(keys, "anchors.jsonl")

	if code, out, errOut := cordon("journal", "sign", "--incident", dir, "--key", key); code != 0 || !strings.Contains(out, "signed by SHA256:") {
		t.Fatalf("sign: %d %s %s", code, out, errOut)
	}
	if code, out, errOut := cordon("journal", "anchor", "--incident", dir, "--to", anchors, "--key", key); code != 0 || !strings.Contains(out, "anchored entry 6") {
		t.Fatalf("anchor: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := cordon("note", "--incident", dir, "after the anchor"); code != 0 {
		t.Fatalf("note: %d %s", code, errOut)
	}
	code, out, errOut := cordon("journal", "verify", "--incident", dir, "--anchor", anchors, "--allowed-signers", allowed)
	if code != 0 || !strings.Contains(out, "anchored: entry 6") || !strings.Contains(out, "1 entries since") || !strings.Contains(out, "by oncall@example.org") {
		t.Fatalf("verify: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := cordon("journal", "anchor", "--incident", dir, "--to", filepath.Join(dir, "anchor")); code == 0 || !strings.Contains(errOut, "inside the workspace") {
		t.Errorf("an anchor inside the workspace: %d %s", code, errOut)
	}

	// cut to the first two entries and rewrite the head to match
	b, _ := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	lines := strings.SplitAfter(string(b), "\n")
	os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(lines[0]+lines[1]), 0o600)
	var second struct{ Hash string }
	json.Unmarshal([]byte(lines[1]), &second)
	os.WriteFile(filepath.Join(dir, "journal.head"), []byte(`{"seq":2,"hash":"`+second.Hash+`"}`+"\n"), 0o600)
	if code, out, _ := cordon("journal", "verify", "--incident", dir); code != 0 || !strings.Contains(out, "unanchored") {
		t.Errorf("plain verify of the cut journal: %d %s", code, out)
	}
	if code, out, _ := cordon("journal", "verify", "--incident", dir, "--anchor", anchors); code != exitTampered || !strings.Contains(out, "cut short") {
		t.Errorf("anchored verify of the cut journal: %d %s", code, out)
	}
}
