package authz

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// TLS is how Serve secures the gateway's connections: the server's
// certificate and key (PEM), and, for mutual TLS, the CA bundle of the
// client certificates it accepts. The zero TLS serves plaintext.
type TLS struct {
	CertFile, KeyFile string
	// ClientCAFile, when set, makes every client present a certificate
	// that CA signed: only the gateways it issued to may ask.
	ClientCAFile string
}

// Plaintext reports whether t serves without TLS.
func (t TLS) Plaintext() bool { return t.CertFile == "" && t.KeyFile == "" && t.ClientCAFile == "" }

// Config loads t's files into a server configuration (nil for plaintext):
// TLS 1.2 at least, and every client certificate verified against the
// client CA when one is named.
func (t TLS) Config() (*tls.Config, error) {
	if t.Plaintext() {
		return nil, nil
	}
	if t.CertFile == "" || t.KeyFile == "" {
		return nil, errors.New("TLS needs both a certificate and its key")
	}
	cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate: %w", err)
	}
	c := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if t.ClientCAFile != "" {
		pem, err := os.ReadFile(t.ClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("client CA %s: no PEM certificate in it", t.ClientCAFile)
		}
		c.ClientCAs, c.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return c, nil
}
