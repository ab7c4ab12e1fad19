//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// readOnlyView makes the workspace tree under root read-only and returns
// the path to read it by: chmod -R a-w for an ordinary user; for root,
// whom modes do not stop, a read-only bind mount, or a skip where mounts
// are not allowed (the classification of EROFS is unit-tested in journal).
func readOnlyView(t *testing.T, root string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if out, err := exec.Command("chmod", "-R", "a-w", root).CombinedOutput(); err != nil {
			t.Fatalf("chmod: %v %s", err, out)
		}
		t.Cleanup(func() { exec.Command("chmod", "-R", "u+w", root).Run() })
		return root
	}
	mnt := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(root, mnt, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("running as root without mounts (%v): a read-only tree cannot be made", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	if err := syscall.Mount("", mnt, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("no read-only remount: %v", err)
	}
	if f, err := os.Create(filepath.Join(mnt, "probe")); err == nil {
		f.Close()
		t.Fatal("the read-only mount takes writes")
	}
	return mnt
}

// TestReadOnlyWorkspaceReadersWorkWritersSayReadOnly: evidence on
// write-protected media is normal in forensics, and search, stats and
// report failed there on opening the lock ("read-only file system").
// Every reader works; every writer fails saying the workspace is read-only.
func TestReadOnlyWorkspaceReadersWorkWritersSayReadOnly(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "incident")
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLedger(t, src, 300)
	if code, out, errOut := cordon("ingest", "--incident", dir, src); code != 0 {
		t.Fatalf("ingest: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := cordon("note", "--incident", dir, "evidence imaged"); code != 0 {
		t.Fatalf("note: %s", errOut)
	}
	_, out, _ := cordon("search", "--incident", dir, "--json", "--limit", "1", "agent:agent-1")
	id := strings.SplitN(strings.SplitN(out, `"id":"`, 2)[1], `"`, 2)[0]
	ro := filepath.Join(readOnlyView(t, root), "incident")

	readers := [][]string{
		{"search", "agent:agent-1"}, {"stats"}, {"show", id}, {"rejects"}, {"findings"}, {"agents"},
		{"steps"}, {"journal"}, {"journal", "verify"}, {"report"}, {"export", "--format", "timesketch"},
	}
	for _, r := range readers {
		args := append([]string{r[0], "--incident", ro}, r[1:]...)
		if code, _, errOut := cordon(args...); code != 0 {
			t.Errorf("%s on a read-only workspace: exit %d %s", strings.Join(r, " "), code, errOut)
		}
	}
	writers := [][]string{
		{"ingest", src}, {"step", "start", "detect.signal"}, {"note", "x"}, {"check"},
		{"action", "contain.creds", "revoke"}, {"subject", "agent-1"}, {"attribute"},
	}
	for _, w := range writers {
		args := append([]string{w[0], "--incident", ro}, w[1:]...)
		if code, _, errOut := cordon(args...); code == 0 || !strings.Contains(errOut, "the workspace is read-only") {
			t.Errorf("%s on a read-only workspace: exit %d %q, want it to say the workspace is read-only", strings.Join(w, " "), code, errOut)
		}
	}
}
