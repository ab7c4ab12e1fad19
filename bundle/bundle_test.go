package bundle_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/bundle"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
)

// keyPair makes an SSH key with ssh-keygen and its allowed_signers file.
func keyPair(t *testing.T) (key, allowed string) {
	t.Helper()
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Fatal("ssh-keygen is needed (apt-get install openssh-client)")
	}
	dir := t.TempDir()
	key = filepath.Join(dir, "id_ed25519")
	if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-C", "oncall@example.org", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	pub, _ := os.ReadFile(key + ".pub")
	allowed = filepath.Join(dir, "allowed_signers")
	os.WriteFile(allowed, []byte("oncall@example.org "+string(pub)), 0o600)
	return key, allowed
}

// signedBundle writes a signed bundle of the credential-theft sample, with
// its evidence, and returns its path and the allowed signers.
func signedBundle(t *testing.T) (string, []journal.AllowedSigner, string) {
	t.Helper()
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	ctx := context.Background()
	if _, err := ws.Note(ctx, journal.Actor{Name: "pdiaz", Via: journal.ViaCLI}, "", "", "px-s228 is agent-9's"); err != nil {
		t.Fatal(err)
	}
	key, allowedFile := keyPair(t)
	s, err := journal.LoadSigner(key, ws.Dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "case.tar.gz")
	f, _ := os.Create(out)
	m, err := bundle.Write(ctx, ws, f, bundle.Options{WithEvidence: true, Signer: s, Actor: journal.Actor{Name: "pdiaz"},
		Cordon: "v9.9.9", Command: []string{"cordon", "bundle", "--incident", "x"}})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if m.Cordon != "v9.9.9" || strings.Join(m.Command, " ") != "cordon bundle --incident x" {
		t.Errorf("the manifest does not say what made it: %q %q", m.Cordon, m.Command)
	}
	evidence := 0
	for _, f := range m.Files {
		if f.Source != "" {
			evidence++
			if f.AsReceived == nil || !*f.AsReceived {
				t.Errorf("%s is not as received", f.Name)
			}
		}
	}
	if evidence != 4 || m.Journal.Entries != 5 {
		t.Fatalf("manifest: %d evidence files, journal %+v", evidence, m.Journal)
	}
	allowed, err := journal.ReadAllowedSigners(allowedFile)
	if err != nil {
		t.Fatal(err)
	}
	return out, allowed, allowedFile
}

func members(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, _ := os.Open(path)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = b
	}
}

// rewrite copies a bundle, changing members as edit says.
func rewrite(t *testing.T, in string, edit func(name string, b []byte) []byte) string {
	t.Helper()
	src, _ := os.Open(in)
	defer src.Close()
	gz, _ := gzip.NewReader(src)
	tr := tar.NewReader(gz)
	out := filepath.Join(t.TempDir(), "tampered.tar.gz")
	dst, _ := os.Create(out)
	defer dst.Close()
	zw := gzip.NewWriter(dst)
	tw := tar.NewWriter(zw)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		b, _ := io.ReadAll(tr)
		b = edit(h.Name, b)
		h.Size = int64(len(b))
		tw.WriteHeader(h)
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	return out
}

func TestBundleVerifies(t *testing.T) {
	path, allowed, allowedFile := signedBundle(t)
	v, err := bundle.Verify(path, allowed)
	if err != nil || !v.OK() || !v.Signed || v.SignedBy != "oncall@example.org" || v.Journal.Entries != 5 {
		t.Fatalf("verify: %+v %v", v, err)
	}
	ms := members(t, path)
	for _, want := range []string{"case/report.md", "case/report.html", "case/report.json", "case/report-killswitch.svg", "case/report-graph.svg", "case/report-timeline.svg", "case/findings.json", "case/capabilities.json", "case/evidence-received.json", "case/journal/journal.jsonl", "case/journal/journal.head", "case/manifest.json", "case/manifest.json.sig"} {
		if _, ok := ms[want]; !ok {
			t.Errorf("the bundle lacks %s", want)
		}
	}
	if caps := string(ms["case/capabilities.json"]); !strings.Contains(caps, `"px-s228"`) || !strings.Contains(caps, `"agent-12"`) {
		t.Errorf("capabilities.json lacks the borrowed credential: %.300s", caps)
	}
	// stock OpenSSH checks the manifest's signature
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "manifest.json.sig"), ms["case/manifest.json.sig"], 0o600)
	cmd := exec.Command("ssh-keygen", "-Y", "verify", "-f", allowedFile, "-I", "oncall@example.org", "-n", journal.NamespaceBundle, "-s", filepath.Join(dir, "manifest.json.sig"))
	cmd.Stdin = bytes.NewReader(ms["case/manifest.json"])
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), `Good "cordon-bundle" signature`) {
		t.Errorf("ssh-keygen -Y verify: %v %s", err, out)
	}
}

func TestTamperedBundleIsRefused(t *testing.T) {
	path, allowed, _ := signedBundle(t)
	cases := map[string]struct {
		edit func(name string, b []byte) []byte
		want string
	}{
		"one byte of the report": {func(n string, b []byte) []byte {
			if n == "case/report.md" {
				b = bytes.Clone(b)
				b[100] ^= 1
			}
			return b
		}, "case/report.md was changed"},
		"one journal line": {func(n string, b []byte) []byte {
			if n == "case/journal/journal.jsonl" {
				return bytes.Replace(b, []byte("px-s228 is agent-9's"), []byte("nothing to report"), 1)
			}
			return b
		}, "case/journal/journal.jsonl was changed"},
		"the signature": {func(n string, b []byte) []byte {
			if n == "case/manifest.json.sig" {
				// one character of the signature itself (the blob's last bytes,
				// in the armor's last body line), still valid base64
				lines := bytes.Split(bytes.Clone(b), []byte("\n"))
				body := lines[len(lines)-3]
				i := len(body) / 2
				if body[i] == 'A' {
					body[i] = 'B'
				} else {
					body[i] = 'A'
				}
				return bytes.Join(lines, []byte("\n"))
			}
			return b
		}, "signature does not verify"},
		"the manifest, re-listing an edited report": {func(n string, b []byte) []byte {
			if n == "case/manifest.json" {
				return bytes.Replace(b, []byte(`"by": "pdiaz"`), []byte(`"by": "mallory"`), 1)
			}
			return b
		}, "signature does not verify"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			v, err := bundle.Verify(rewrite(t, path, c.edit), allowed)
			if !errors.Is(err, bundle.ErrBundle) || !strings.Contains(strings.Join(v.Problems, "; "), c.want) {
				t.Errorf("verify: %v, problems %v, want one saying %q", err, v.Problems, c.want)
			}
		})
	}
}

// A bundle written while another console keeps noting carries a journal
// whose bytes end at the head its manifest records: it verifies.
func TestBundleWhileTheJournalGrows(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	ctx := context.Background()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := ws.Note(ctx, journal.Actor{Name: "ana", Via: journal.ViaConsole}, "", "", fmt.Sprintf("note %d", i)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := range 3 {
		out := filepath.Join(t.TempDir(), "case.tar.gz")
		f, _ := os.Create(out)
		_, err := bundle.Write(ctx, ws, f, bundle.Options{Actor: journal.Actor{Name: "pdiaz"}})
		f.Close()
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if v, err := bundle.Verify(out, nil); err != nil {
			t.Fatalf("bundle %d written while the journal grew: %+v %v", i, v.Problems, err)
		}
	}
	close(stop)
	<-done
}
