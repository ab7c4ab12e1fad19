package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// ErrHostKey: the host key file cannot be used.
var ErrHostKey = errors.New("host key")

// loadHostKey reads the server's private key from path, generating an
// ed25519 key there (mode 0600, with its .pub beside it) the first time, so
// that the fingerprint responders pin stays the same across restarts. Like
// sshd, it refuses a key others can read.
func loadHostKey(path string) (gossh.Signer, bool, error) {
	created := false
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if b, err = generateHostKey(path); err != nil {
			return nil, false, fmt.Errorf("%w: generate %s: %w", ErrHostKey, path, err)
		}
		created = true
	} else if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrHostKey, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrHostKey, err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, false, fmt.Errorf("%w: %s has mode %04o; others must not read it: chmod 600 %s", ErrHostKey, path, perm, path)
	}
	signer, err := gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %s: %w", ErrHostKey, path, err)
	}
	return signer, created, nil
}

func generateHostKey(path string) ([]byte, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := gossh.MarshalPrivateKey(priv, "cordon host key")
	if err != nil {
		return nil, err
	}
	data := pem.EncodeToMemory(block)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// O_EXCL: two servers starting at once never overwrite each other's key.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, err
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		return nil, err
	}
	pub := gossh.MarshalAuthorizedKey(signer.PublicKey())
	_ = os.WriteFile(path+".pub", pub, 0o644)
	return data, nil
}
