package main

import (
	"crypto/tls"
	"crypto/x509"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/cordon-ir/cordon/internal/tlstest"
	"github.com/nats-io/nats-server/v2/server"
)

// A bus that verifies its clients' certificates: cordon presents the one
// NATS_CERT and NATS_KEY name and checks the server against NATS_CA, as
// the nats CLI does; without them it is refused, and says how to give
// one.
func TestShipToABusThatVerifiesClients(t *testing.T) {
	dir := t.TempDir()
	ca := tlstest.NewCA(t, dir, "bus")
	serverCert, serverKey := ca.Issue(t, dir, "server", true)
	clientCert, clientKey := ca.Issue(t, dir, "shipper", false)
	kp, err := tls.LoadX509KeyPair(serverCert, serverKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	s := fleettest.ServerWith(t, func(o *server.Options) {
		o.TLS, o.TLSVerify, o.TLSTimeout = true, true, 2
		o.TLSConfig = &tls.Config{Certificates: []tls.Certificate{kp}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	})
	url := strings.Replace(s.ClientURL(), "nats://", "tls://", 1)
	sample := filepath.Join("..", "..", "sample-incidents", "shared-volume-token")
	ship := func() (int, string) {
		code, out, errOut := cordon("ship", "--nats", url, "--state", filepath.Join(t.TempDir(), "ship.json"), sample)
		return code, out + errOut
	}

	t.Setenv("NATS_CA", ca.File)
	t.Setenv("NATS_CERT", "")
	t.Setenv("NATS_KEY", "")
	if code, out := ship(); code == 0 || !strings.Contains(out, "NATS_CERT") {
		t.Fatalf("no client certificate, to a bus that verifies clients: exit %d\n%s", code, out)
	} else {
		t.Logf("without a client certificate: %s", out)
	}
	t.Setenv("NATS_CERT", clientCert)
	if code, out := ship(); code == 0 || !strings.Contains(out, "NATS_KEY") {
		t.Errorf("a certificate without its key: exit %d\n%s", code, out)
	}
	t.Setenv("NATS_KEY", clientKey)
	code, out := ship()
	if code != 0 {
		t.Fatalf("ship with the client certificate: exit %d\n%s", code, out)
	}
	_, js, err := fleet.Connect(url, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := fleettest.Messages(t, js, fleet.DefaultStream); n == 0 {
		t.Errorf("nothing on the stream after the ship:\n%s", out)
	}
}
