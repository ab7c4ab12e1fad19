package detect

import (
	"math/rand"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
)

// namedIn gives what searching text for every issued credential gives
// (attribution.NamesCredential), in issued's order: on random credentials,
// some of word bytes alone and some not, and texts made of them, pieces of
// them and separators, the credentials changing between texts.
func TestNamedInIsEveryCredentialSearchedFor(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	const alphabet = "aAb0_-.:/+ =\"'"
	word := func(n int, letters string) string {
		var b strings.Builder
		for range n {
			b.WriteByte(letters[r.Intn(len(letters))])
		}
		return b.String()
	}
	e := &env{byCred: map[string][]*session{}}
	var creds []string
	named, others := 0, 0
	for round := range 400 {
		if round%20 == 0 {
			// a new credential issued: the sets are made again
			c := word(1+r.Intn(6), "aAb0_-")
			if r.Intn(3) == 0 {
				c = word(1+r.Intn(6), alphabet)
			}
			e.byCred[c] = append(e.byCred[c], &session{})
			e.creds = nil
			creds = append(creds, c)
		}
		var text strings.Builder
		for range r.Intn(8) {
			switch r.Intn(4) {
			case 0:
				text.WriteString(creds[r.Intn(len(creds))])
			case 1:
				c := creds[r.Intn(len(creds))]
				text.WriteString(c[:r.Intn(len(c)+1)])
			default:
				text.WriteString(word(r.Intn(4), alphabet))
			}
		}
		s := text.String()
		var want []string
		for _, c := range e.issued() {
			if attribution.NamesCredential(s, c) {
				want = append(want, c)
			}
		}
		got := e.namedIn(s)
		if !slices.Equal(got, want) {
			t.Fatalf("namedIn(%q) with %q issued = %q, want %q", s, e.issued(), got, want)
		}
		named += len(got)
		if e.credOther {
			others++
		}
	}
	// the check means something only if texts named credentials, and if
	// both kinds of credential were issued
	if named < 50 || others == 0 || len(e.credWords) == 0 {
		t.Fatalf("%d credentials named, %d texts with other credentials issued, %d of word bytes alone", named, others, len(e.credWords))
	}
}

// persists answers as persistRe does, on lines with and without its
// words, whole or in part, at word boundaries or inside other words.
func TestPersistsIsTheExpression(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	pieces := []string{"nohup", "crontab", "systemctl", "setsid", "disown", "nohu", "xnohup", "crontabs", " ", "-", "_", "/usr/bin/", "python3 a.py", "&", ";", "é", "0"}
	yes := 0
	for range 5000 {
		var b strings.Builder
		for range r.Intn(6) {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		s := b.String()
		want := persistRe.MatchString(s)
		if got := persists(s); got != want {
			t.Fatalf("persists(%q) = %v, want %v", s, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < 500 || yes > 4500 {
		t.Fatalf("%d lines of 5000 persist: the check needs both answers", yes)
	}
}

// addrOf reads an address as net.ParseIP does, and two texts of one
// address give one key where net.IP.String gave one: mapped IPv4, IPv6
// written long or short, and what is not an address (a zone, leading
// zeros, a host name) none.
func TestAddrOfIsParseIP(t *testing.T) {
	for _, s := range []string{"10.0.0.7", "::ffff:10.0.0.7", "0:0:0:0:0:ffff:a00:7", "2001:db8::1", "2001:0db8:0:0:0:0:0:1",
		"::1.2.3.4", "fe80::1%eth0", "010.0.0.7", "10.0.0.256", "pypi.org", "", "::", "1.2.3.4.5", "[::1]", " 10.0.0.7"} {
		a, ok := addrOf(s)
		ip := net.ParseIP(s)
		if ok != (ip != nil) {
			t.Errorf("addrOf(%q) ok %v, net.ParseIP %v", s, ok, ip)
			continue
		}
		if ok && a.String() != ip.String() {
			t.Errorf("addrOf(%q) = %s, net.ParseIP's %s", s, a, ip)
		}
	}
	a, _ := addrOf("::ffff:10.0.0.7")
	b, _ := addrOf("10.0.0.7")
	c, _ := addrOf("2001:0db8:0:0:0:0:0:1")
	d, _ := addrOf("2001:db8::1")
	if a != b || c != d {
		t.Errorf("one address, two keys: %v %v, %v %v", a, b, c, d)
	}
}
