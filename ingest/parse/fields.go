package parse

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Absent reports the placeholders logs use for "no value".
func Absent(s string) bool {
	return s == "" || s == "-" || s == "<NA>" || s == "null"
}

// Clean returns s, or "" for an absent placeholder.
func Clean(s string) string {
	if Absent(s) {
		return ""
	}
	return s
}

// SplitHostPort splits "host:port", "[v6]:port" or a bare host. The port is
// 0 when missing or not a number.
func SplitHostPort(s string) (string, int) {
	s = Clean(s)
	if s == "" {
		return "", 0
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return strings.Trim(s, "[]"), 0
	}
	if host == "-" {
		host = ""
	}
	p, _ := strconv.Atoi(port)
	return host, p
}

// IsIP reports whether s is an IPv4 or IPv6 address.
func IsIP(s string) bool { return net.ParseIP(s) != nil }

// EpochSeconds parses "1525344856.899" (seconds with a fraction) as UTC.
func EpochSeconds(s string) (time.Time, error) {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad epoch time %q", s)
	}
	var ns int64
	if frac != "" {
		if len(frac) > 9 {
			frac = frac[:9]
		}
		f, err := strconv.ParseInt(frac, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("bad epoch time %q", s)
		}
		ns = f * int64(math.Pow10(9-len(frac)))
	}
	return time.Unix(n, ns).UTC(), nil
}

// RFC3339 parses an RFC 3339 time with any fractional precision, as UTC.
func RFC3339(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad time %q", s)
	}
	return t.UTC(), nil
}

// Flex is a JSON value that may be a string, a number or null, as access
// logs of different versions render the same field.
type Flex string

// UnmarshalJSON accepts strings, numbers, booleans and null.
func (f *Flex) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := Unmarshal(b, &s); err != nil {
			return err
		}
		*f = Flex(s)
		return nil
	}
	if string(b) == "null" {
		*f = ""
		return nil
	}
	*f = Flex(b)
	return nil
}

// String returns the value, "" for absent placeholders.
func (f Flex) String() string { return Clean(string(f)) }

// Int returns the value as an integer, 0 when absent, not a number or
// outside 64 bits (never wrapped). A field whose overflow must reject the
// record (a byte count, a port, a pid) is read with Numbers instead.
func (f Flex) Int() int64 {
	n, _ := f.Int64()
	return n
}

// URLTarget returns the lowercased host and the port a request URL names:
// an absolute URL ("https://h:8443/p", the port defaulting by scheme) or
// the authority form of CONNECT ("h:443", "[v6]:443"). Anything else
// (origin-form paths, Squid's "error:..." pseudo-URLs) gives "", 0.
func URLTarget(u string) (string, int) {
	u = Clean(u)
	if scheme, rest, ok := strings.Cut(u, "://"); ok {
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			rest = rest[:i]
		}
		if i := strings.LastIndexByte(rest, '@'); i >= 0 {
			rest = rest[i+1:]
		}
		host, port := SplitHostPort(rest)
		if port == 0 {
			port = defaultPort(strings.ToLower(scheme))
		}
		return strings.ToLower(host), port
	}
	if strings.ContainsAny(u, "/ ") {
		return "", 0
	}
	host, port, err := net.SplitHostPort(u)
	if err != nil || host == "" {
		return "", 0
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return "", 0
	}
	return strings.ToLower(host), p
}

func defaultPort(scheme string) int {
	switch scheme {
	case "http", "ws":
		return 80
	case "https", "wss":
		return 443
	case "ftp":
		return 21
	}
	return 0
}

func HostPort(host, ip string, port int) string {
	if host == "" {
		host = ip
	}
	if port == 0 {
		return host
	}
	return host + ":" + strconv.Itoa(port)
}

// NonZeroTime parses an RFC 3339 time and refuses year 1, which no sensor
// writes and which would read as "no time" downstream.
func NonZeroTime(s string) (time.Time, error) {
	t, err := RFC3339(s)
	if err == nil && t.IsZero() {
		return t, fmt.Errorf("zero time %q", s)
	}
	return t, err
}

// PodName is "namespace/name", or the name alone without a namespace.
func PodName(ns, name string) string {
	if name == "" {
		return ""
	}
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// ContainerID strips the runtime scheme (containerd://, docker://,
// cri-o://) and lowercases, so ids compare by prefix across sensors.
func ContainerID(id string) string {
	if _, rest, ok := strings.Cut(id, "://"); ok {
		id = rest
	}
	return strings.ToLower(strings.TrimSpace(id))
}

// NetTuple is "src:port -> dst:port" for a message.
func NetTuple(ev *evidence.Event) string {
	dst := joinAddr(FirstOf(ev.DstHost, ev.DstIP), ev.DstPort)
	if ev.SrcIP == "" {
		return dst
	}
	return joinAddr(ev.SrcIP, ev.SrcPort) + " -> " + dst
}

// joinAddr is host:port, with brackets for IPv6, or the host alone.
func joinAddr(host string, port int) string {
	if port == 0 || host == "" {
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}
