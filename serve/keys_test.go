package serve

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/serve/servetest"
	"github.com/cordon-ir/cordon/tui"
)

// TestRestrictedKeyLinesAreSkipped: a line with options (from=, expiry,
// command=, cert-authority) restricts its key in ways this server cannot
// honour, so the key gets nothing rather than a full console.
func TestRestrictedKeyLinesAreSkipped(t *testing.T) {
	plain, restricted := servetest.NewKey(t, "alice"), servetest.NewKey(t, "robot")
	b := []byte(plain.AuthorizedLine() + "\n" +
		`from="10.1.2.3",command="/usr/bin/backup" ` + restricted.AuthorizedLine() + "\n")
	keys, bad := parseAuthorizedKeys(b)
	if _, ok := keys[plain.Fingerprint()]; !ok {
		t.Error("a plain key was skipped")
	}
	if _, ok := keys[restricted.Fingerprint()]; ok || len(bad) != 1 || bad[0].line != 2 || len(bad[0].options) != 2 {
		t.Errorf("a restricted key got in (bad lines %v)", bad)
	}
}

// TestObserversFileUnreadableFailsClosed: a key listed as an observer and
// as a responder must not become a responder because the observers file
// stopped reading (a group-writable save, a deletion).
func TestObserversFileUnreadableFailsClosed(t *testing.T) {
	dir := t.TempDir()
	bob := servetest.NewKey(t, "bob")
	auth, obs := filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "observers")
	for _, p := range []string{auth, obs} {
		if err := os.WriteFile(p, []byte(bob.AuthorizedLine()+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r, err := newKeyring(auth, obs, "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if role, _ := r.role(bob.Signer.PublicKey()); role != RoleObserver {
		t.Fatalf("role %v, want observer", role)
	}
	if err := os.Chmod(obs, 0o664); err != nil {
		t.Fatal(err)
	}
	if role, _ := r.role(bob.Signer.PublicKey()); role != RoleNone {
		t.Errorf("with the observers file unreadable bob is %v, want refused", role)
	}
}

// TestHugeWindowIsClamped: the client picks the size; the console is never
// drawn larger than maxWidth×maxHeight.
func TestHugeWindowIsClamped(t *testing.T) {
	h, err := incidenttest.New(t).Handle(incident.HandleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := console{tui.New(h, tui.Options{JournalPoll: -1})}
	next, _ := c.Update(tea.WindowSizeMsg{Width: 1 << 30, Height: 1 << 30})
	if v := next.View(); len(v) > 4*maxWidth*maxHeight {
		t.Errorf("a %d-byte frame for a huge window", len(v))
	}
	next, _ = c.Update(tea.WindowSizeMsg{Width: 0, Height: 0})
	_ = next.View()
}
