package journal

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// testKey writes a fresh ed25519 private key to dir/name and returns its
// signer and its allowed_signers line for principal.
func testKey(t *testing.T, dir, name, principal string) (*Signer, string) {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	block, err := ssh.MarshalPrivateKey(priv, principal)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSigner(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, principal + ` namespaces="cordon-journal,cordon-bundle" ` + s.Public()
}

// anchoredJournal is three notes, a signed checkpoint, an anchor taken
// outside the workspace, and two notes after it.
func anchoredJournal(t *testing.T) (j *Journal, dir, anchors, allowed string) {
	t.Helper()
	j, dir = newTestJournal(t)
	keys := t.TempDir()
	s, line := testKey(t, keys, "id_ed25519", "alice@example.org")
	allowed = filepath.Join(keys, "allowed_signers")
	os.WriteFile(allowed, []byte(line+"\n"), 0o600)
	appendNotes(t, j, 3)
	if _, err := j.Sign(context.Background(), testActor, s); err != nil {
		t.Fatal(err)
	}
	anchors = filepath.Join(keys, "anchors.jsonl")
	if _, err := j.AnchorTo(anchors, testActor, s); err != nil {
		t.Fatal(err)
	}
	appendNotes(t, j, 2)
	return j, dir, anchors, allowed
}

func verifyAnchored(t *testing.T, j *Journal, anchors, allowed string) (Verification, Proof) {
	t.Helper()
	as, err := ReadAnchors(anchors)
	if err != nil {
		t.Fatal(err)
	}
	signers, err := ReadAllowedSigners(allowed)
	if err != nil {
		t.Fatal(err)
	}
	v, p, err := j.VerifyWith(VerifyOptions{Anchors: as, Allowed: signers})
	if err != nil {
		t.Fatal(err)
	}
	return v, p
}

func TestAnchoredJournalVerifies(t *testing.T) {
	j, _, anchors, allowed := anchoredJournal(t)
	v, p := verifyAnchored(t, j, anchors, allowed)
	if !v.OK() || v.Entries != 6 || p.Anchors != 1 || p.Anchored.Seq != 4 || p.Signed != 2 || p.SignedTo != 4 || len(p.SignedBy) != 1 || p.SignedBy[0] != "alice@example.org" {
		t.Fatalf("verification %+v, proof %+v", v, p)
	}
}

// Each attack a plain chain cannot see is refused once an anchor is kept.
func TestAnchorRefusesRewrites(t *testing.T) {
	attacks := map[string]struct {
		do   func(t *testing.T, dir string)
		want string
	}{
		"cut to entry 2 and head rewritten": {func(t *testing.T, dir string) {
			lines := readLines(t, dir)
			writeLines(t, dir, lines[:2])
			var e Entry
			json.Unmarshal(lines[1], &e)
			b, _ := json.Marshal(Head{Seq: 2, Hash: e.Hash})
			os.WriteFile(filepath.Join(dir, headFile), b, 0o600)
		}, "cut short"},
		"journal and head deleted": {func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, fileName))
			os.Remove(filepath.Join(dir, headFile))
		}, "cut short, emptied or deleted"},
		"entry 2 edited and the chain re-hashed": {func(t *testing.T, dir string) {
			rewriteChain(t, dir, func(e *Entry) {
				if e.Seq == 2 {
					e.Text = "nothing to see"
				}
			})
		}, "rewritten"},
	}
	for name, a := range attacks {
		t.Run(name, func(t *testing.T) {
			j, dir, anchors, allowed := anchoredJournal(t)
			a.do(t, dir)
			if v, err := j.Verify(); err != nil || (!v.OK() && name != "journal and head deleted") {
				// the chain alone is consistent: that is the attack
				t.Fatalf("the plain chain: %+v %v", v, err)
			}
			v, _ := verifyAnchored(t, j, anchors, allowed)
			if v.OK() || !strings.Contains(v.Problem.Reason, a.want) {
				t.Errorf("with the anchor: %+v, want a problem saying %q", v.Problem, a.want)
			}
		})
	}
}

// rewriteChain edits entries and re-hashes the chain and its head, as an
// attacker who can write the workspace would.
func rewriteChain(t *testing.T, dir string, edit func(*Entry)) {
	t.Helper()
	j, _ := Open(dir)
	entries, err := j.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	prev := Genesis
	for _, e := range entries {
		edit(&e)
		e.Prev = prev
		line, hash, err := encodeEntry(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append(line, '\n'))
		prev = hash
		e.Hash = hash
		if e.Seq == int64(len(entries)) {
			b, _ := json.Marshal(Head{Seq: e.Seq, Hash: hash})
			os.WriteFile(filepath.Join(dir, headFile), b, 0o600)
		}
	}
	writeLines(t, dir, out)
}

// A checkpoint signed by a key the allowed signers do not list, or by
// none, proves nothing and is refused.
func TestCheckpointSignerMustBeAllowed(t *testing.T) {
	j, _, anchors, _ := anchoredJournal(t)
	_, other := testKey(t, t.TempDir(), "other", "mallory@example.org")
	allowed := filepath.Join(t.TempDir(), "allowed_signers")
	os.WriteFile(allowed, []byte(other+"\n"), 0o600)
	v, _ := verifyAnchored(t, j, anchors, allowed)
	if v.OK() || !strings.Contains(v.Problem.Reason, "allowed signers do not list") {
		t.Errorf("another signer: %+v", v.Problem)
	}
}

// A line with a key twice is refused even when its hash recomputes.
func TestDuplicateKeyIsRefused(t *testing.T) {
	j, dir := newTestJournal(t)
	appendNotes(t, j, 2)
	lines := readLines(t, dir)
	forged := strings.Replace(string(lines[1]), `"text":"note 2"`, `"text":"note 2","text":"all clear"`, 1)
	lines[1] = append(rehash([]byte(strings.TrimSuffix(forged, "\n"))), '\n')
	writeLines(t, dir, lines)
	v, err := j.Verify()
	if err != nil || v.OK() || !strings.Contains(v.Problem.Reason, `key "text" appears twice`) {
		t.Errorf("duplicate key: %+v %v", v.Problem, err)
	}
}

// A key stored in the workspace is refused as a signer; so is an anchor
// file kept there.
func TestSignerAndAnchorOutsideTheWorkspace(t *testing.T) {
	j, dir := newTestJournal(t)
	appendNotes(t, j, 1)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	block, _ := ssh.MarshalPrivateKey(priv, "")
	inside := filepath.Join(dir, "ssh_host_ed25519_key")
	os.WriteFile(inside, pem.EncodeToMemory(block), 0o600)
	if _, err := LoadSigner(inside, dir); !errors.Is(err, ErrSignerInside) {
		t.Errorf("a key inside the workspace: %v", err)
	}
	if _, err := j.AnchorTo(filepath.Join(dir, "anchor.jsonl"), testActor, nil); err == nil || !strings.Contains(err.Error(), "inside the workspace") {
		t.Errorf("an anchor inside the workspace: %v", err)
	}
}

// The checkpoint's signature is the format of ssh-keygen -Y sign: stock
// OpenSSH verifies it.
func TestCheckpointVerifiesWithSSHKeygen(t *testing.T) {
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Fatal("ssh-keygen is needed (apt-get install openssh-client)")
	}
	j, _, _, allowed := anchoredJournal(t)
	entries, _ := j.Entries()
	var c Checkpoint
	if err := decodePayload(entries[3], &c); err != nil || entries[3].Type != EntryCheckpoint {
		t.Fatalf("entry 4: %+v %v", entries[3], err)
	}
	sig := filepath.Join(t.TempDir(), "checkpoint.sig")
	os.WriteFile(sig, []byte(c.Signature), 0o600)
	cmd := exec.Command(keygen, "-Y", "verify", "-f", allowed, "-I", "alice@example.org", "-n", NamespaceJournal, "-s", sig)
	cmd.Stdin = strings.NewReader(string(c.statement()))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Good \"cordon-journal\" signature") {
		t.Errorf("ssh-keygen -Y verify: %v\n%s", err, out)
	}
}

// With SignEvery, the journal signs its head after every n entries and at
// Seal, and the chain verifies with each signature.
func TestSignEveryAndSeal(t *testing.T) {
	j, _ := newTestJournal(t)
	keys := t.TempDir()
	s, line := testKey(t, keys, "id", "console@example.org")
	j.SignEvery(s, 3)
	appendNotes(t, j, 7) // seqs 1 2 3 [4: cp] 5 6 [7: cp] 8 9, then Seal's [10: cp]
	if err := j.Seal(context.Background(), testActor); err != nil {
		t.Fatal(err)
	}
	if err := j.Seal(context.Background(), testActor); err != nil { // nothing new: no second seal
		t.Fatal(err)
	}
	entries, _ := j.Entries()
	var types []string
	for _, e := range entries {
		types = append(types, string(e.Type))
	}
	if strings.Join(types, " ") != "note note note checkpoint note note checkpoint note note checkpoint" {
		t.Fatalf("entries: %v", types)
	}
	allowed := filepath.Join(keys, "allowed")
	os.WriteFile(allowed, []byte(line+"\n"), 0o600)
	signers, _ := ReadAllowedSigners(allowed)
	v, p, err := j.VerifyWith(VerifyOptions{Allowed: signers})
	if err != nil || !v.OK() || p.Signed != 3 || p.SignedTo != 9 {
		t.Errorf("verify: %+v %+v %v", v, p, err)
	}
}
