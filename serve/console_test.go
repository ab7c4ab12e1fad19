package serve_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/serve"
	"github.com/cordon-ir/cordon/serve/servetest"
)

const wait = 20 * time.Second

// TestServeConsole: an authorized key gets a terminal session with the
// console of the served incident.
func TestServeConsole(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	s := start(t, dir, serve.Options{AuthorizedKeys: keysFile(t, "authorized_keys", alice)})
	term := servetest.Open(t, s.dial(t, "alice", alice), 100, 30)
	term.WaitFor("TIMELINE", wait)
	term.WaitFor("fixture-incident", wait)
	term.WaitFor(loaded, wait)
	term.Type("q")
	if !term.WaitEOF(wait) {
		t.Fatal("the session did not end after q")
	}
	if !strings.Contains(s.Log.String(), "console opened") || !strings.Contains(s.Log.String(), alice.Fingerprint()) {
		t.Errorf("the server log does not name the session's key:\n%s", s.Log.String())
	}
}

// TestServeObserverCannotWrite: an observer's mark key says it is
// read-only, and the journal holds nothing from them.
func TestServeObserverCannotWrite(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	olive := servetest.NewKey(t, "olive@audit")
	s := start(t, dir, serve.Options{
		AuthorizedKeys: keysFile(t, "authorized_keys", alice),
		Observers:      keysFile(t, "observers", olive),
	})
	term := servetest.Open(t, s.dial(t, "olive", olive), 100, 30)
	term.WaitFor(loaded, wait)
	term.Type("m")
	term.WaitFor("read-only", wait)
	// The note key says so too, and opens no input.
	term.Type("\x1b")
	before := strings.Count(term.Screen(), "read-only")
	term.Type("i")
	deadline := time.Now().Add(wait)
	for strings.Count(term.Screen(), "read-only") == before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if strings.Count(term.Screen(), "read-only") == before || strings.Contains(term.Screen(), "note on event") {
		t.Errorf("the note key did not say it is read-only:\n%s", term.Screen())
	}
	entries := journalEntries(t, dir)
	for _, e := range entries {
		if e.Actor.Key == olive.Fingerprint() || e.Actor.Name == "olive" {
			t.Errorf("the observer wrote to the journal: %+v", e)
		}
	}
}

// TestServeObserverListedTwiceStaysReadOnly: a key in both files gets the
// narrower grant.
func TestServeObserverListedTwiceStaysReadOnly(t *testing.T) {
	dir := fixtureDir(t)
	olive := servetest.NewKey(t, "olive@audit")
	s := start(t, dir, serve.Options{
		AuthorizedKeys: keysFile(t, "authorized_keys", olive),
		Observers:      keysFile(t, "observers", olive),
	})
	term := servetest.Open(t, s.dial(t, "olive", olive), 100, 30)
	term.WaitFor(loaded, wait)
	term.Type("m")
	term.WaitFor("read-only", wait)
	if n := len(journalEntries(t, dir)); n != 0 {
		t.Errorf("journal has %d entries, want none", n)
	}
}

// TestServeTwentyConsoles: twenty clients mark twenty events at once on
// one workspace; the journal keeps every mark, with who made it, and
// verifies.
func TestServeTwentyConsoles(t *testing.T) {
	const n = 20
	dir := fixtureDir(t)
	keys := make([]servetest.Key, n)
	for i := range keys {
		keys[i] = servetest.NewKey(t, fmt.Sprintf("responder-%d@oncall", i))
	}
	s := start(t, dir, serve.Options{AuthorizedKeys: keysFile(t, "authorized_keys", keys...)})

	terms := make([]*servetest.Terminal, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Sizes differ per client: each console lays out its own.
			terms[i] = servetest.Open(t, s.dial(t, fmt.Sprintf("user-%d", i), keys[i]), 90+i, 24+i%5)
		}()
	}
	wg.Wait()
	for i, term := range terms {
		if !term.Wait(loaded, wait) {
			t.Fatalf("console %d did not load:\n%s", i, term.Screen())
		}
	}
	// Every console moves to its own row and marks it, all at once.
	for i, term := range terms {
		go func() { term.Type(strings.Repeat("j", i) + "m") }()
	}
	for i, term := range terms {
		if !term.Wait("marked (", wait) {
			t.Fatalf("console %d did not mark:\n%s", i, term.Screen())
		}
	}
	// And every console notes its event, all at once, through the note key.
	for i, term := range terms {
		go func() {
			term.Type("i")
			if term.Wait("note on event", wait) {
				term.Type(fmt.Sprintf("seen by user-%d\r", i))
			}
		}()
	}
	for i, term := range terms {
		if !term.Wait("note added", wait) {
			t.Fatalf("console %d did not add its note:\n%s", i, term.Screen())
		}
	}

	entries := journalEntries(t, dir)
	marks := map[string]journal.Entry{}
	notes := map[string]journal.Entry{}
	for _, e := range entries {
		switch e.Type {
		case journal.EntryMark:
			marks[e.Actor.Name] = e
		case journal.EntryNote:
			notes[e.Actor.Name] = e
		default:
			t.Errorf("unexpected entry %s by %s", e.Type, e.Actor.Name)
		}
	}
	if len(entries) != 2*n || len(marks) != n || len(notes) != n {
		t.Fatalf("journal has %d entries: marks by %d actors, notes by %d; want %d of each", len(entries), len(marks), len(notes), n)
	}
	events := map[string]bool{}
	for i := range n {
		name := fmt.Sprintf("user-%d", i)
		want := journal.Actor{Name: name, Via: journal.ViaSSH, Key: keys[i].Fingerprint(), Comment: keys[i].Comment}
		mark, note := marks[name], notes[name]
		if mark.Actor != want || note.Actor != want {
			t.Errorf("actors %+v and %+v, want %+v", mark.Actor, note.Actor, want)
		}
		if note.Text != "seen by "+name || note.Event != mark.Event {
			t.Errorf("%s noted %q on %s, marked %s", name, note.Text, note.Event, mark.Event)
		}
		events[mark.Event] = true
	}
	if len(events) != n {
		t.Errorf("%d distinct events marked, want %d", len(events), n)
	}
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := j.Verify()
	if err != nil || !v.OK() {
		t.Fatalf("journal does not verify: %v %v", err, v.Err())
	}
}

// TestServeSharedJournal: what one responder writes shows in another's
// console, within the journal's polling interval.
func TestServeSharedJournal(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	bob := servetest.NewKey(t, "bob@oncall")
	s := start(t, dir, serve.Options{AuthorizedKeys: keysFile(t, "authorized_keys", alice, bob)})
	a := servetest.Open(t, s.dial(t, "alice", alice), 120, 30)
	b := servetest.Open(t, s.dial(t, "bob", bob), 100, 30)
	a.WaitFor(loaded, wait)
	b.WaitFor(loaded, wait)
	b.Type("\t\t\t\t")
	b.WaitFor("JOURNAL", wait)
	a.Type("i")
	a.WaitFor("note on event", wait)
	a.Type("agent-7 still holds a credential\r")
	a.WaitFor("note added", wait)
	began := time.Now()
	b.WaitFor("agent-7 still holds a credential", wait)
	if d := time.Since(began); d > 3*time.Second {
		t.Errorf("the note took %s to reach the other console", d)
	}
}

// TestServeShutdown: cancelling the server ends every console with a
// message, Serve returns, and the workspace is released.
func TestServeShutdown(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	s := start(t, dir, serve.Options{AuthorizedKeys: keysFile(t, "authorized_keys", alice)})
	term := servetest.Open(t, s.dial(t, "alice", alice), 100, 30)
	term.WaitFor(loaded, wait)
	began := time.Now()
	if err := s.Stop(t); err != nil {
		t.Fatalf("serve: %v", err)
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("shutdown took %s", d)
	}
	term.WaitFor("shutting down", wait)
	// Released: a writer can take the workspace now.
	ws, err := incident.Create(dir)
	if err != nil {
		t.Fatalf("workspace still held after shutdown: %v", err)
	}
	ws.Close()
	if _, err := servetest.Dial(s.Addr, "alice", "", nil); err == nil {
		t.Error("the server still accepts connections")
	}
}

func journalEntries(t testing.TB, dir string) []journal.Entry {
	t.Helper()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := j.Entries()
	if err != nil {
		t.Fatal(err)
	}
	return incidenttest.WithoutReceipts(entries)
}

// TestServeColourPerSession: each console is styled for its own client's
// terminal; NO_COLOR from one client turns colour off for that one only.
func TestServeColourPerSession(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	s := start(t, dir, serve.Options{AuthorizedKeys: keysFile(t, "authorized_keys", alice)})
	colour := servetest.Open(t, s.dial(t, "alice", alice), 100, 30)
	plain := servetest.Open(t, s.dial(t, "alice", alice), 100, 30, "NO_COLOR=1")
	colour.WaitFor(loaded, wait)
	plain.WaitFor(loaded, wait)
	hasColour := func(raw string) bool {
		return strings.Contains(raw, "[38;") || strings.Contains(raw, "[48;") || strings.Contains(raw, ";38;") || strings.Contains(raw, ";48;")
	}
	if !hasColour(colour.Raw()) {
		t.Errorf("xterm-256color client got no colour:\n%q", tailOf(colour.Raw(), 800))
	}
	if hasColour(plain.Raw()) {
		t.Errorf("NO_COLOR client got colour:\n%q", tailOf(plain.Raw(), 800))
	}
}

func tailOf(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// An SSH client that never answers the terminal's colour query never got
// a console: the query waited for an answer (or a key, which it then
// swallowed). It is bounded; past it the console assumes a dark
// background, and the first key reaches the console.
func TestServeSilentTerminalGetsAConsole(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	s := start(t, dir, serve.Options{AuthorizedKeys: keysFile(t, "authorized_keys", alice)})
	term := servetest.OpenSilent(t, s.dial(t, "alice", alice), 100, 30)
	if !term.Wait(loaded, 10*time.Second) {
		t.Fatalf("no console within 10s for a terminal that answers no query:\n%q", tailOf(term.Raw(), 800))
	}
	term.Type("?")
	term.WaitFor("KEYS", wait)
}

// TestServeSignsTheJournalWithAnOutsideHostKey: with its host key outside
// the workspace, the server signs the journal as it stops; with the key
// inside (the default), it does not, and says why.
func TestServeSignsTheJournalWithAnOutsideHostKey(t *testing.T) {
	for _, outside := range []bool{true, false} {
		dir := fixtureDir(t)
		alice := servetest.NewKey(t, "alice@oncall")
		opt := serve.Options{AuthorizedKeys: keysFile(t, "authorized_keys", alice)}
		if outside {
			opt.HostKey = filepath.Join(t.TempDir(), "host_key")
		}
		s := start(t, dir, opt)
		term := servetest.Open(t, s.dial(t, "alice", alice), 100, 30)
		term.WaitFor(loaded, wait)
		term.Type("i")
		term.WaitFor("note on event", wait)
		term.Type("signed on the way out\r")
		term.WaitFor("note added", wait)
		if err := s.Stop(t); err != nil {
			t.Fatal(err)
		}
		j, _ := journal.Open(dir)
		v, p, err := j.VerifyWith(journal.VerifyOptions{})
		if err != nil || !v.OK() {
			t.Fatalf("verify: %+v %v", v, err)
		}
		entries, _ := j.Entries()
		last := entries[len(entries)-1]
		switch {
		case outside && (last.Type != journal.EntryCheckpoint || p.Signed != 1 || p.SignedBy[0] != s.Fingerprint()):
			t.Errorf("host key outside: last entry %s, proof %+v", last.Type, p)
		case !outside && (p.Signed != 0 || !strings.Contains(s.Log.String(), "inside the workspace")):
			t.Errorf("host key inside: proof %+v, log:\n%s", p, s.Log.String())
		}
	}
}
