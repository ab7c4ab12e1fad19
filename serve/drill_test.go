package serve_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/serve"
	"github.com/cordon-ir/cordon/serve/servetest"
)

// TestServeDrillRoles: over SSH, a facilitator's key runs the drill's
// clock; a participant's p says it is the facilitator's and changes
// nothing; both see the drill's bar.
func TestServeDrillRoles(t *testing.T) {
	s, err := drill.Load(filepath.Join("..", "sample-incidents", "persistence-after-kill"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := drill.Start(context.Background(), s, filepath.Join(t.TempDir(), "workspace"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	bob := servetest.NewKey(t, "bob@blue")
	fran := servetest.NewKey(t, "fran@facilitator")
	srv := start(t, d.WS.Dir, serve.Options{
		AuthorizedKeys: keysFile(t, "authorized_keys", bob),
		Facilitators:   keysFile(t, "facilitators", fran),
		Drill:          d,
	})

	team := servetest.Open(t, srv.dial(t, "bob", bob), 100, 30)
	team.WaitFor("DRILL ⏸ paused 13:18:04", wait)
	team.Type("p")
	team.WaitFor("disabled: the facilitator runs the drill's clock", wait)
	if !d.Clock.Paused() {
		t.Fatal("a participant's p started the clock")
	}
	if strings.Contains(team.Screen(), "next inject") {
		t.Errorf("a participant sees the countdown:\n%s", team.Screen())
	}

	lead := servetest.Open(t, srv.dial(t, "fran", fran), 100, 30)
	lead.WaitFor("next inject 14:21:03", wait)
	lead.Type("J")
	lead.WaitFor("INJECT 14:21:03", wait)
	team.WaitFor("INJECT 14:21:03", wait) // the team's console follows the shared drill
	if !strings.Contains(srv.Log.String(), "role=facilitator") {
		t.Errorf("the log does not name the facilitator:\n%s", srv.Log.String())
	}
}

// TestServeFacilitatorsNeedADrill: facilitator keys without a drill are
// refused.
func TestServeFacilitatorsNeedADrill(t *testing.T) {
	alice := servetest.NewKey(t, "alice@oncall")
	_, err := serve.New(serve.Options{Dir: fixtureDir(t), AuthorizedKeys: keysFile(t, "authorized_keys", alice),
		Facilitators: keysFile(t, "facilitators", alice)})
	if err == nil || !strings.Contains(err.Error(), "drill") {
		t.Fatalf("New: %v", err)
	}
}
