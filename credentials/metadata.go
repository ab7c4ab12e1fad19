package credentials

import (
	"net"
	"strconv"
	"strings"
)

// MetadataEndpoint is a cloud metadata service: a host, not a path, that
// hands the instance's or the pod's credentials to whoever asks from it.
type MetadataEndpoint struct {
	Host string
	Name string
}

// metadataEndpoints are the catalogue's metadata services, by the host or
// address a request names. docs/credentials.md lists them.
var metadataEndpoints = []MetadataEndpoint{
	{"169.254.169.254", "instance metadata (AWS, GCP, Azure, OCI, DigitalOcean, OpenStack)"},
	{"fd00:ec2::254", "AWS instance metadata over IPv6"},
	{"169.254.170.2", "AWS ECS task credentials"},
	{"169.254.170.23", "AWS EKS Pod Identity agent"},
	{"fd00:ec2::23", "AWS EKS Pod Identity agent over IPv6"},
	{"metadata.google.internal", "GCP metadata server"},
	{"168.63.129.16", "Azure WireServer (extension settings; Azure treats it as IMDS)"},
	{"100.100.100.200", "Alibaba Cloud metadata"},
	{"metadata.tencentyun.com", "Tencent Cloud metadata"},
}

// MetadataEndpoints returns the metadata services the catalogue knows.
func MetadataEndpoints() []MetadataEndpoint {
	return append([]MetadataEndpoint(nil), metadataEndpoints...)
}

// MetadataHost reports whether a host (a name or an address, with or
// without brackets, port or trailing dot) is a cloud metadata service.
// Addresses match in any spelling a client accepts: ::ffff:169.254.169.254,
// the integer 2852039166, 0xa9fea9fe.
func MetadataHost(host string) bool {
	h := strings.ToLower(strings.TrimSpace(host))
	if hh, _, err := net.SplitHostPort(h); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	if h == "" {
		return false
	}
	if ip := net.ParseIP(h); ip != nil {
		h = ip.String()
	} else if n, err := strconv.ParseUint(h, 0, 32); err == nil {
		h = net.IPv4(byte(n>>24), byte(n>>16), byte(n>>8), byte(n)).String()
	}
	for _, e := range metadataEndpoints {
		if h == e.Host {
			return true
		}
	}
	return false
}

// MetadataHostIn returns the first metadata service a command line or URL
// names: a URL's host, or a bare host word (curl 169.254.169.254/latest).
func MetadataHostIn(text string) (string, bool) {
	if !mayNameMetadata(text) {
		return "", false
	}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '"' || r == '\'' || r == '`' || r == '=' || r == '(' || r == ')' || r == ';' || r == '|' || r == '&' || r == ','
	}) {
		if _, rest, ok := strings.Cut(w, "://"); ok {
			w = rest
		}
		if i := strings.IndexAny(w, "/?#"); i >= 0 {
			w = w[:i]
		}
		if i := strings.LastIndexByte(w, '@'); i >= 0 {
			w = w[i+1:]
		}
		if MetadataHost(w) {
			return w, true
		}
	}
	return "", false
}

// metadataHints are in every name and dotted address of a metadata host;
// a text without any of them, without "0x" and without a long run of
// digits (2852039166 is 169.254.169.254) names none, and most command
// lines are looked at for nothing else.
var metadataHints = []string{"169.254.", "fd00:ec2:", "metadata", "100.100.100.200", "168.63.129.16", "0x"}

func mayNameMetadata(text string) bool {
	if text == "" {
		return false
	}
	t := strings.ToLower(text)
	for _, h := range metadataHints {
		if strings.Contains(t, h) {
			return true
		}
	}
	run := 0
	for i := 0; i < len(t); i++ {
		if t[i] >= '0' && t[i] <= '9' {
			if run++; run >= 9 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
