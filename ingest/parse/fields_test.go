package parse

import "testing"

func TestURLTarget(t *testing.T) {
	for u, want := range map[string]struct {
		host string
		port int
	}{
		"http://agent:pw@Files.Example.COM/x?y": {"files.example.com", 80},
		"https://status.example.org:8443/ready": {"status.example.org", 8443},
		"ftp://ftp.example.org/pub/":            {"ftp.example.org", 21},
		"http://[2001:db8::1]/":                 {"2001:db8::1", 80},
		"evil.example.com:443":                  {"evil.example.com", 443},
		"[2001:db8::1]:443":                     {"2001:db8::1", 443},
		"error:transaction-end-before-headers":  {"", 0},
		"/api/v1/locations":                     {"", 0},
		"evil.example.com:99999":                {"", 0},
		"-":                                     {"", 0},
	} {
		host, port := URLTarget(u)
		if host != want.host || port != want.port {
			t.Errorf("URLTarget(%q) = %q, %d; want %q, %d", u, host, port, want.host, want.port)
		}
	}
}
