package authz_test

import (
	"context"
	"crypto/tls"
	"net"
	"testing"
	"time"

	authv3 "github.com/envoyproxy/go-control-plane/envoy/service/auth/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/cordon-ir/cordon/authz"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/internal/tlstest"
	"github.com/cordon-ir/cordon/watch"
)

// allowAll answers every check with allow.
type allowAll struct{}

func (allowAll) Ask(ev *evidence.Event, req watch.VerdictRequest, subject string) (watch.Verdict, error) {
	return watch.Verdict{Agent: "agent-9", Recommendation: watch.Allow, VerdictID: "v1"}, nil
}

// With a certificate, a key and a client CA, ext_authz is mutual TLS: a
// gateway holding a certificate that CA signed is answered; one with a
// certificate of another CA, one with none, and a plaintext client are
// not. With no client CA, any TLS client is answered and plaintext is
// still refused.
func TestExtAuthzMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca := tlstest.NewCA(t, dir, "gateways")
	other := tlstest.NewCA(t, dir, "elsewhere")
	serverCert, serverKey := ca.Issue(t, dir, "server", true)
	clientCert, clientKey := ca.Issue(t, dir, "gateway", false)
	strayCert, strayKey := other.Issue(t, dir, "stray", false)
	caFile := ca.File

	for _, tc := range []struct {
		name     string
		tls      authz.TLS
		answered map[string]bool // client -> answered
	}{
		{"mutual", authz.TLS{CertFile: serverCert, KeyFile: serverKey, ClientCAFile: caFile},
			map[string]bool{"gateway": true, "stray": false, "no certificate": false, "plaintext": false}},
		{"server only", authz.TLS{CertFile: serverCert, KeyFile: serverKey},
			map[string]bool{"gateway": true, "stray": true, "no certificate": true, "plaintext": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conf, err := tc.tls.Config()
			if err != nil {
				t.Fatal(err)
			}
			addr := serveTLS(t, conf)
			clients := map[string]credentials.TransportCredentials{
				"gateway":        credentials.NewTLS(ca.ClientConfig(t, clientCert, clientKey)),
				"stray":          credentials.NewTLS(ca.ClientConfig(t, strayCert, strayKey)),
				"no certificate": credentials.NewTLS(ca.ClientConfig(t, "", "")),
				"plaintext":      insecure.NewCredentials(),
			}
			for name, creds := range clients {
				conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(creds))
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
				_, err = authv3.NewAuthorizationClient(conn).Check(ctx, check("r1", "10.0.2.17", "", time.Time{}, nil))
				cancel()
				conn.Close()
				if got := err == nil; got != tc.answered[name] {
					t.Errorf("%s client: answered %v (%v), want %v", name, got, err, tc.answered[name])
				}
			}
		})
	}

	for _, bad := range []authz.TLS{
		{CertFile: serverCert},
		{ClientCAFile: caFile},
		{CertFile: serverCert, KeyFile: serverKey, ClientCAFile: serverKey}, // no certificate in it
		{CertFile: serverKey, KeyFile: serverCert},
	} {
		if _, err := bad.Config(); err == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
	if c, err := (authz.TLS{}).Config(); c != nil || err != nil {
		t.Errorf("no TLS: %v %v, want plaintext", c, err)
	}
}

func serveTLS(t *testing.T, conf *tls.Config) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- authz.Serve(ctx, lis, authz.New(allowAll{}), time.Second, conf) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return lis.Addr().String()
}
