package fleettest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Bus is a server started with the documented bus configuration
// (docs/nats/cordon-bus.conf).
type Bus struct {
	Server *server.Server
	Root   string // the source tree's root
}

// BusRoles are the users of the documented configuration; each one's
// password is "pw-" and its name ("pw-operator" for the three operators).
var BusRoles = []string{"shipper", "sensor", "ledger", "watcher", "console", "gateway", "operator"}

// BusServer starts the documented bus on loopback with its store in a
// temporary folder, and no stream.
func BusServer(t *testing.T) *Bus {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	for _, r := range BusRoles {
		t.Setenv("CORDON_"+strings.ToUpper(r)+"_PASSWORD", "pw-"+r)
	}
	opts, err := server.ProcessConfigFile(filepath.Join(root, "docs", "nats", "cordon-bus.conf"))
	if err != nil {
		t.Fatal(err)
	}
	opts.Host, opts.Port, opts.StoreDir = "127.0.0.1", server.RANDOM_PORT, t.TempDir()
	opts.NoLog, opts.NoSigs = true, true
	return &Bus{Server: startOpts(t, opts), Root: root}
}

// SecuredBus is BusServer with its three streams, made as the operators
// would from fleet/streams (what cordon bus init makes).
func SecuredBus(t *testing.T) *Bus {
	t.Helper()
	b := BusServer(t)
	for _, s := range []struct{ file, user string }{
		{"cordon-evidence.json", "evidence-operator"},
		{"cordon-ledger.json", "ledger-operator"},
		{"cordon-events.json", "operator"},
	} {
		var cfg jetstream.StreamConfig
		data, err := os.ReadFile(filepath.Join(b.Root, "fleet", "streams", s.file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatalf("%s: %v", s.file, err)
		}
		nc, err := nats.Connect(b.Server.ClientURL(), nats.UserInfo(s.user, "pw-operator"))
		if err != nil {
			t.Fatalf("%s: %v", s.user, err)
		}
		js, err := jetstream.New(nc)
		if err == nil {
			_, err = js.CreateStream(context.Background(), cfg)
		}
		nc.Close()
		if err != nil {
			t.Fatalf("%s as %s: %v", s.file, s.user, err)
		}
	}
	return b
}

// URL is the server's URL with user's name and password.
func (b *Bus) URL(user string) string {
	pw := "pw-" + user
	if strings.HasSuffix(user, "-operator") {
		pw = "pw-operator"
	}
	return "nats://" + user + ":" + pw + "@" + strings.TrimPrefix(b.Server.ClientURL(), "nats://")
}
