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
// (docs/nats/cordon-bus.conf) and the streams its operators make from
// docs/nats/streams.
type Bus struct {
	Server *server.Server
	Dir    string // docs/nats
}

// BusRoles are the users of the documented configuration; each one's
// password is "pw-" and its name.
var BusRoles = []string{"shipper", "sensor", "ledger", "watcher", "console", "gateway", "operator"}

// SecuredBus starts the documented bus on loopback with its store in a
// temporary folder, and makes its three streams as the operators would.
func SecuredBus(t *testing.T) *Bus {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(self), "..", "..", "docs", "nats")
	for _, r := range BusRoles {
		t.Setenv("CORDON_"+strings.ToUpper(r)+"_PASSWORD", "pw-"+r)
	}
	opts, err := server.ProcessConfigFile(filepath.Join(dir, "cordon-bus.conf"))
	if err != nil {
		t.Fatal(err)
	}
	opts.Host, opts.Port, opts.StoreDir = "127.0.0.1", server.RANDOM_PORT, t.TempDir()
	opts.NoLog, opts.NoSigs = true, true
	b := &Bus{Server: startOpts(t, opts), Dir: dir}
	for file, user := range map[string]string{
		"cordon-evidence.json": "evidence-operator",
		"cordon-ledger.json":   "ledger-operator",
		"cordon-events.json":   "operator",
	} {
		var cfg jetstream.StreamConfig
		data, err := os.ReadFile(filepath.Join(dir, "streams", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		nc, err := nats.Connect(b.Server.ClientURL(), nats.UserInfo(user, "pw-operator"))
		if err != nil {
			t.Fatalf("%s: %v", user, err)
		}
		js, err := jetstream.New(nc)
		if err == nil {
			_, err = js.CreateStream(context.Background(), cfg)
		}
		nc.Close()
		if err != nil {
			t.Fatalf("%s as %s: %v", file, user, err)
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
