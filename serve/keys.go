package serve

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Role is what a key may do once it is in.
type Role int

// Roles, least privilege first.
const (
	RoleNone Role = iota
	RoleObserver
	RoleResponder
	RoleFacilitator // runs a drill's clock
)

func (r Role) String() string {
	switch r {
	case RoleObserver:
		return "observer"
	case RoleResponder:
		return "responder"
	case RoleFacilitator:
		return "facilitator"
	}
	return "refused"
}

// keyEntry is one accepted key: its comment names the person in the journal.
type keyEntry struct {
	comment string
}

// keyFile is an authorized_keys file, parsed again whenever its size or
// modification time changes, so that adding or revoking a key takes effect
// on the next login without restarting the server.
type keyFile struct {
	path string
	log  *slog.Logger

	mu    sync.Mutex
	size  int64
	mtime time.Time
	keys  map[string]keyEntry // by SHA256 fingerprint
	err   error
}

func newKeyFile(path string, log *slog.Logger) (*keyFile, error) {
	k := &keyFile{path: path, log: log}
	if err := k.reload(); err != nil {
		return nil, err
	}
	return k, nil
}

// unreadable reports whether the file cannot be read now.
func (k *keyFile) unreadable() bool { return k.reload() != nil }

// lookup reports whether key is in the file, and its comment.
func (k *keyFile) lookup(key gossh.PublicKey) (keyEntry, bool) {
	if k == nil {
		return keyEntry{}, false
	}
	if err := k.reload(); err != nil {
		// The file went away or became unreadable: no key from it is
		// accepted until it is back, and the log says why.
		k.log.Warn("authorized keys unreadable; refusing its keys", "path", k.path, "err", err)
		return keyEntry{}, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	e, ok := k.keys[gossh.FingerprintSHA256(key)]
	return e, ok
}

// reload parses the file again if it changed since the last parse.
func (k *keyFile) reload() error {
	fi, err := os.Stat(k.path)
	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil {
		k.keys, k.size, k.mtime = nil, -1, time.Time{}
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		// As sshd's StrictModes: whoever can write the file can let
		// themselves in.
		k.keys, k.size, k.mtime = nil, -1, time.Time{}
		return fmt.Errorf("%s has mode %04o: others could add keys; chmod go-w %s", k.path, perm, k.path)
	}
	if k.keys != nil && fi.Size() == k.size && fi.ModTime().Equal(k.mtime) {
		return nil
	}
	b, err := os.ReadFile(k.path)
	if err != nil {
		k.keys = nil
		return err
	}
	keys, skipped := parseAuthorizedKeys(b)
	for _, s := range skipped {
		if len(s.options) == 0 {
			k.log.Warn("authorized keys: line skipped: not a public key", "path", k.path, "line", s.line)
			continue
		}
		k.log.Warn("authorized keys: key refused: its options restrict it in ways this server cannot honour (it runs no forced command and checks no from=); list the key without options to let it in",
			"path", k.path, "line", s.line, "options", strings.Join(s.options, ", "))
	}
	k.keys, k.size, k.mtime = keys, fi.Size(), fi.ModTime()
	return nil
}

// skippedLine is a line of an authorized_keys file that lets no key in:
// not a key, or a key with options (their names, without values).
type skippedLine struct {
	line    int
	options []string
}

// parseAuthorizedKeys reads the OpenSSH authorized_keys format. A line with
// options before the key (from=, expiry-time=, command=, restrict,
// cert-authority, ...) is refused: those restrict the key, and this server
// cannot honour them (a forced command would be replaced by the console),
// so granting it a console would widen what the line allows. It returns
// the lines it skipped.
func parseAuthorizedKeys(b []byte) (map[string]keyEntry, []skippedLine) {
	keys := map[string]keyEntry{}
	var bad []skippedLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		key, comment, options, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			bad = append(bad, skippedLine{line: n})
			continue
		}
		if len(options) > 0 {
			s := skippedLine{line: n}
			for _, o := range options {
				name, _, value := strings.Cut(o, "=")
				if value {
					name += "="
				}
				s.options = append(s.options, name)
			}
			bad = append(bad, s)
			continue
		}
		keys[gossh.FingerprintSHA256(key)] = keyEntry{comment: comment}
	}
	return keys, bad
}

// keyring decides who gets in and with what role.
type keyring struct {
	responders, observers, facilitators *keyFile
}

func newKeyring(authorized, observers, facilitators string, log *slog.Logger) (*keyring, error) {
	r := &keyring{}
	var err error
	if r.responders, err = newKeyFile(authorized, log); err != nil {
		return nil, fmt.Errorf("authorized keys: %w", err)
	}
	if observers != "" {
		if r.observers, err = newKeyFile(observers, log); err != nil {
			return nil, fmt.Errorf("observer keys: %w", err)
		}
	}
	if facilitators != "" {
		if r.facilitators, err = newKeyFile(facilitators, log); err != nil {
			return nil, fmt.Errorf("facilitator keys: %w", err)
		}
	}
	return r, nil
}

// role is what key may do. A key listed as an observer stays read-only
// even when it is also in authorized_keys: the narrower grant wins. In a
// drill, a facilitator's key runs the clock; the authorized keys are the
// participants'.
func (r *keyring) role(key gossh.PublicKey) (Role, string) {
	if e, ok := r.observers.lookup(key); ok {
		return RoleObserver, e.comment
	}
	if r.observers != nil && r.observers.unreadable() {
		// fail closed: a key this file may list must not get more than
		// it would, so nobody gets in until the file reads again
		return RoleNone, ""
	}
	if e, ok := r.facilitators.lookup(key); ok {
		return RoleFacilitator, e.comment
	}
	if e, ok := r.responders.lookup(key); ok {
		return RoleResponder, e.comment
	}
	return RoleNone, ""
}
