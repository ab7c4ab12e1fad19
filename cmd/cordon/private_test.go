package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFreshWorkspaceIsPrivate: workspaces were made 0755 and their
// journal, rejects and lock 0644, so the evidence, with whatever secret
// the agent stole in it, was open to every user of the machine.
func TestFreshWorkspaceIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cases", "incident")
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLedger(t, src, 300)
	for _, args := range [][]string{
		{"ingest", "--incident", dir, src},
		{"note", "--incident", dir, "token seen in the agent's env"},
		{"step", "--incident", dir, "start", "detect.signal"},
		{"check", "--incident", dir},
		{"report", "--incident", dir, "-o", filepath.Join(dir, "report.md")},
	} {
		want := 0
		if args[0] == "check" {
			want = exitCannotTell // no kill time is recorded: nothing is judged
		}
		if code, out, errOut := cordon(args...); code != want {
			t.Fatalf("%s: exit %d %s %s", args[0], code, out, errOut)
		}
	}
	files := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		} else {
			files++
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o", p, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 8 {
		t.Errorf("only %d files in the workspace: the walk missed it", files)
	}
}

// TestSharedWorkspaceIsRefusedForWriting: a writer refuses a workspace
// others can read, naming the fix, unless --allow-shared or
// CORDON_ALLOW_SHARED says the sharing is meant; readers read it.
func TestSharedWorkspaceIsRefusedForWriting(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "incident")
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLedger(t, src, 100)
	if code, _, errOut := cordon("ingest", "--incident", dir, src); code != 0 {
		t.Fatal(errOut)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"ingest", "--incident", dir, src},
		{"note", "--incident", dir, "x"},
		{"step", "--incident", dir, "start", "detect.signal"},
		{"check", "--incident", dir},
		{"subject", "--incident", dir, "agent-1"},
	} {
		code, _, errOut := cordon(args...)
		if code == 0 || !strings.Contains(errOut, "chmod -R go-rwx "+dir) || !strings.Contains(errOut, "--allow-shared") {
			t.Errorf("%s into a 0755 workspace: exit %d %q, want a refusal naming chmod -R go-rwx %s", args[0], code, errOut, dir)
		}
	}
	for _, args := range [][]string{{"search", "agent:agent-1"}, {"stats"}, {"journal"}, {"findings"}} {
		if code, _, errOut := cordon(append([]string{args[0], "--incident", dir}, args[1:]...)...); code != 0 {
			t.Errorf("reader %s refused on a 0755 workspace: %s", args[0], errOut)
		}
	}
	if code, out, errOut := cordon("ingest", "--allow-shared", "--incident", dir, src); code != 0 {
		t.Errorf("ingest --allow-shared: exit %d %s %s", code, out, errOut)
	}
	t.Setenv(allowSharedEnv, "1")
	if code, _, errOut := cordon("note", "--incident", dir, "shared on purpose"); code != 0 {
		t.Errorf("note with %s=1: %s", allowSharedEnv, errOut)
	}
}

// check's exit status is the case's Assessment's: 9 when a layer is live
// (persistence-after-kill at the kill: its proxy login was used after it),
// 10 when one cannot be told (credential-theft: aws-k-231 has no CloudTrail
// to show its use, the CI job only a person says was cancelled).
func TestCheckExitStatusFollowsTheRule(t *testing.T) {
	for _, tc := range []struct {
		sample, agent, kill string
		want                int
		says                string
	}{
		{"persistence-after-kill", "agent-21", "2026-09-02T14:21:03Z", exitLive, "Cached credentials live"},
		{"credential-theft", "agent-12", "2026-08-11T10:21:03Z", exitCannotTell, "Queued jobs cannot tell"},
	} {
		t.Run(tc.sample, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "incident")
			for _, args := range [][]string{
				{"ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", tc.sample)},
				{"subject", "--incident", dir, tc.agent},
				{"step", "--incident", dir, "done", "contain.stop", "--at", tc.kill, "killed"},
			} {
				if code, out, errOut := cordon(args...); code != 0 {
					t.Fatalf("%s: exit %d %s %s", args[0], code, out, errOut)
				}
			}
			code, out, errOut := cordon("check", "--incident", dir)
			if code != tc.want || !strings.Contains(errOut, tc.says) {
				t.Errorf("check: exit %d, want %d saying %q\n%s%s", code, tc.want, tc.says, out, errOut)
			}
			// a check of steps that close no layer answers for those alone
			if code, out, errOut := cordon("check", "--incident", dir, "detect.signal"); code != 0 {
				t.Errorf("check detect.signal: exit %d %s %s", code, out, errOut)
			}
		})
	}
}

// verdict prints the Assessment without journaling it, and --as-of judges
// on the evidence a responder had then: cloud-key-after-kill's AWS key was
// live at 11:10 (CloudTrail had shown it used after the 10:54:02 kill, and
// revoked only at 11:18:31); on all the evidence its job cannot be told.
func TestVerdictAsOf(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "incident")
	for _, args := range [][]string{
		{"ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "cloud-key-after-kill")},
		{"subject", "--incident", dir, "agent-52"},
		{"step", "--incident", dir, "done", "contain.stop", "--at", "2026-10-14T10:54:02.1Z", "killed"},
	} {
		if code, out, errOut := cordon(args...); code != 0 {
			t.Fatalf("%s: exit %d %s %s", args[0], code, out, errOut)
		}
	}
	code, out, _ := cordon("verdict", "--incident", dir)
	if code != exitCannotTell || !strings.Contains(out, "Cached credentials     stopped      AKIAEVAL611EXAMPLE01: stopped at 11:18:31 (revoked, CloudTrail)") {
		t.Errorf("verdict: exit %d\n%s", code, out)
	}
	code, out, _ = cordon("verdict", "--incident", dir, "--as-of", "2026-10-14T11:10:00Z")
	if code != exitLive || !strings.Contains(out, "Cached credentials     live") || !strings.Contains(out, "as of 2026-10-14 11:10:00Z") {
		t.Errorf("verdict as of 11:10: exit %d\n%s", code, out)
	}
	if code, out, _ := cordon("journal", "--incident", dir, "--type", "check_result"); code != 0 || strings.TrimSpace(out) != "" {
		t.Errorf("verdict journaled checks: %d %q", code, out)
	}
}
