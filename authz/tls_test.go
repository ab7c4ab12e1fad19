package authz_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authv3 "github.com/envoyproxy/go-control-plane/envoy/service/auth/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/cordon-ir/cordon/authz"
	"github.com/cordon-ir/cordon/evidence"
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
	ca := newCA(t, "gateways CA")
	other := newCA(t, "someone else's CA")
	serverCert, serverKey := ca.issue(t, dir, "server", true)
	clientCert, clientKey := ca.issue(t, dir, "gateway", false)
	strayCert, strayKey := other.issue(t, dir, "stray", false)
	caFile := filepath.Join(dir, "ca.pem")
	writePEM(t, caFile, "CERTIFICATE", ca.cert.Raw)

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
				"gateway":        clientTLS(t, ca, clientCert, clientKey),
				"stray":          clientTLS(t, ca, strayCert, strayKey),
				"no certificate": clientTLS(t, ca, "", ""),
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

// clientTLS trusts ca for the server and presents cert (none when "").
func clientTLS(t *testing.T, ca *testCA, cert, key string) credentials.TransportCredentials {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	c := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	if cert != "" {
		kp, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			t.Fatal(err)
		}
		c.Certificates = []tls.Certificate{kp}
	}
	return credentials.NewTLS(c)
}

type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key}
}

// issue writes a certificate ca signs, for the server (127.0.0.1) or a
// client, and its key; it returns their files.
func (ca *testCA) issue(t *testing.T, dir, name string, server bool) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "EC PRIVATE KEY", kb)
	return certFile, keyFile
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	b := pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "-----BEGIN "+kind) {
		t.Fatalf("%s: not PEM", path)
	}
}
