package journal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// Namespaces of the signatures cordon makes, in the `ssh-keygen -Y` sense:
// a signature made for one is never valid for the other.
const (
	NamespaceJournal = "cordon-journal"
	NamespaceBundle  = "cordon-bundle"
)

// ErrSignerInside: the signing key is stored inside the workspace, where
// whoever can rewrite the journal could also sign the rewrite.
var ErrSignerInside = errors.New("the signing key is inside the workspace")

// Signer makes SSH signatures (the format of `ssh-keygen -Y sign`) with one
// key, for the journal's checkpoints and for case bundles.
type Signer struct {
	s    ssh.Signer
	Path string // the key file it was loaded from
}

// Public is the signer's public key, in authorized_keys form.
func (s *Signer) Public() string {
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.s.PublicKey())))
}

// Fingerprint is the public key's SHA256 fingerprint, as ssh-keygen -l
// prints it.
func (s *Signer) Fingerprint() string { return ssh.FingerprintSHA256(s.s.PublicKey()) }

// Sign signs msg for namespace and returns the armored signature
// (-----BEGIN SSH SIGNATURE-----).
func (s *Signer) Sign(msg []byte, namespace string) ([]byte, error) {
	sig, err := sshsig.Sign(bytes.NewReader(msg), s.s, sshsig.HashSHA512, namespace)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return sshsig.Armor(sig), nil
}

// LoadSigner reads an SSH private key (OpenSSH or PEM) from path. A key
// protected by a passphrase is used through ssh-agent ($SSH_AUTH_SOCK) when
// the agent holds it. path may also name the public key (KEY.pub) of a key
// the agent holds. A key stored inside any of the workspaces named in
// inside is refused with ErrSignerInside.
func LoadSigner(path string, inside ...string) (*Signer, error) {
	real, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(real); err == nil {
		real = r
	}
	for _, dir := range inside {
		if within(real, dir) {
			return nil, fmt.Errorf("%w: %s is in %s; keep the key outside it (a signature by a key anyone who can rewrite the journal can read proves nothing)", ErrSignerInside, path, dir)
		}
	}
	b, err := os.ReadFile(real)
	if err != nil {
		return nil, fmt.Errorf("read signing key: %w", err)
	}
	if pub, _, _, _, err := ssh.ParseAuthorizedKey(b); err == nil {
		return agentSigner(path, pub)
	}
	s, err := ssh.ParsePrivateKey(b)
	var missing *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &missing) && missing.PublicKey != nil:
		return agentSigner(path, missing.PublicKey)
	case err != nil:
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	return &Signer{s: s, Path: path}, nil
}

// agentSigner finds pub among the keys ssh-agent holds.
func agentSigner(path string, pub ssh.PublicKey) (*Signer, error) {
	sock := os.Getenv("SSH_AUTH_SOCK")
	if sock == "" {
		return nil, fmt.Errorf("signing key %s needs its passphrase: add it to ssh-agent (ssh-add) and set SSH_AUTH_SOCK", path)
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("ssh-agent: %w", err)
	}
	signers, err := agent.NewClient(conn).Signers()
	if err != nil {
		return nil, fmt.Errorf("ssh-agent: %w", err)
	}
	want := pub.Marshal()
	for _, s := range signers {
		if bytes.Equal(s.PublicKey().Marshal(), want) {
			return &Signer{s: s, Path: path}, nil
		}
	}
	return nil, fmt.Errorf("ssh-agent does not hold the key of %s (ssh-add it)", path)
}

// within reports whether path is dir or inside it, links resolved.
func within(path, dir string) bool {
	d, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(d); err == nil {
		d = r
	}
	rel, err := filepath.Rel(d, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// AllowedSigner is one line of an allowed_signers file (ssh-keygen(1),
// ALLOWED SIGNERS): who a key speaks for, and for which namespaces.
type AllowedSigner struct {
	Principals []string
	Namespaces []string // empty: any
	Key        ssh.PublicKey
}

// ReadAllowedSigners reads an allowed_signers file. Certificate authorities
// and validity windows are refused rather than ignored: a verification that
// skipped them would say more than it checked.
func ReadAllowedSigners(path string) ([]AllowedSigner, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("allowed signers: %w", err)
	}
	defer f.Close()
	var out []AllowedSigner
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		principals, rest, _ := strings.Cut(line, " ")
		a := AllowedSigner{Principals: strings.Split(principals, ",")}
		rest = strings.TrimSpace(rest)
		if opts, key, ok := strings.Cut(rest, " "); ok && !strings.HasPrefix(opts, "ssh-") && !strings.HasPrefix(opts, "ecdsa-") && !strings.HasPrefix(opts, "sk-") {
			for _, o := range splitOptions(opts) {
				name, val, _ := strings.Cut(o, "=")
				switch strings.ToLower(name) {
				case "namespaces":
					a.Namespaces = strings.Split(strings.Trim(val, `"`), ",")
				default:
					return nil, fmt.Errorf("%s:%d: option %q is not supported", path, n, name)
				}
			}
			rest = strings.TrimSpace(key)
		}
		key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(rest))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		a.Key = key
		out = append(out, a)
	}
	return out, sc.Err()
}

// splitOptions splits a,b="x,y",c at the commas outside quotes.
func splitOptions(s string) []string {
	var out []string
	quoted, start := false, 0
	for i, c := range s {
		switch {
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// VerifySignature checks an armored signature of msg in namespace. With
// allowed signers it returns the principals of the signer that made it,
// and fails for any other key; without, it checks the signature against
// the key it names and returns that key's fingerprint only.
func VerifySignature(msg, armored []byte, namespace string, allowed []AllowedSigner) (string, error) {
	sig, err := sshsig.Unarmor(armored)
	if err != nil {
		return "", fmt.Errorf("signature: %w", err)
	}
	if err := sshsig.Verify(bytes.NewReader(msg), sig, sig.PublicKey, sig.HashAlgorithm, namespace); err != nil {
		return "", fmt.Errorf("signature does not verify: %w", err)
	}
	fp := ssh.FingerprintSHA256(sig.PublicKey)
	if allowed == nil {
		return fp, nil
	}
	want := sig.PublicKey.Marshal()
	for _, a := range allowed {
		if !bytes.Equal(a.Key.Marshal(), want) {
			continue
		}
		if len(a.Namespaces) > 0 && !slices.Contains(a.Namespaces, namespace) {
			continue
		}
		return strings.Join(a.Principals, ","), nil
	}
	return "", fmt.Errorf("signed by %s, which the allowed signers do not list for %s", fp, namespace)
}
