package detect

import (
	"math/rand"
	"net"
	"net/url"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
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
		"::1.2.3.4", "fe80::1%eth0", "010.0.0.7", "10.0.0.256", "pypi.org", "", "::", "1.2.3.4.5", "[::1]", " 10.0.0.7",
		"2001:DB8::A", "cafe.bad", "deadbeef", "10.0.0.7.", "::FFFF:10.0.0.7"} {
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
	// a host name is told from an address without the error parsing
	// would make (the book asks of every network event's host)
	if n := testing.AllocsPerRun(100, func() { addrOf("files.pythonhosted.org") }); n != 0 {
		t.Errorf("addrOf of a host name allocates %v times", n)
	}
}

// parseCallAsItWas is parseCall as it was before the command cache: a
// call's command line parsed with every call.
func parseCallAsItWas(ev *evidence.Event) *call {
	c := &call{t: ev.Time, id: ev.ID, callID: ev.CallID, agent: ev.Agent, tool: ev.Tool, path: ev.Path,
		readOnly: strings.Contains(ev.Raw, `"read_only":true`)}
	if strings.Contains(ev.Message, "retry of") {
		if m := retryRe.FindStringSubmatch(ev.Message); m != nil {
			c.retryOf = m[1]
		}
	}
	if c.retryOf == "" && strings.Contains(ev.Raw, `"retry_of"`) {
		if m := rawRetry.FindStringSubmatch(ev.Raw); m != nil {
			c.retryOf = m[1]
		}
	}
	c.bin = program(ev.Cmdline)
	text := ev.Cmdline + " " + ev.URL
	if !strings.Contains(text, "://") {
		text = ""
	}
	for _, u := range urlRe.FindAllString(text, -1) {
		p, err := url.Parse(u)
		if err != nil || p.Hostname() == "" || strings.ContainsAny(p.Hostname(), "$%{") {
			continue
		}
		if c.scheme == "" {
			c.scheme = strings.ToLower(p.Scheme)
			c.port, _ = strconv.Atoi(p.Port())
		}
		c.hosts = appendNew(c.hosts, strings.ToLower(p.Hostname()))
	}
	for _, ip := range ipv4Re.FindAllString(dotted(ev.Cmdline), -1) {
		if net.ParseIP(ip) != nil {
			c.hosts = appendNew(c.hosts, ip)
		}
	}
	if c.path != "" {
		c.paths = append(c.paths, path.Clean(c.path))
	}
	cmd := ev.Cmdline
	if text != "" {
		cmd = urlRe.ReplaceAllString(cmd, " ")
	}
	if !strings.ContainsAny(cmd, "/~") {
		cmd = ""
	}
	for _, m := range absPathRe.FindAllStringSubmatch(cmd, -1) {
		p := m[1]
		if strings.HasPrefix(p, "~/") {
			p = "/home/~" + p[1:]
		}
		c.paths = appendNew(c.paths, path.Clean(p))
	}
	return c
}

// A call read through the command cache is the call parseCall read before
// there was one: on random tool calls whose command lines and URLs are
// made of programs, URLs, addresses, home and absolute paths, quotes and
// separators, many run again (the cache's hits), some with a path of
// their own that the command names too, some a command run with another
// URL that falls in the same slot; the calls' hosts are changed after
// reading, as interning does.
func TestCommandCacheIsParsingAnew(t *testing.T) {
	r := rand.New(rand.NewSource(34))
	pieces := []string{"curl", "git push", "cat", "HTTPS_PROXY=http://10.0.0.9:3128", "https://api.example.com/v1",
		"http://Registry.Example.org:8080/x", "ftp://files.example.net", "wss://a.b/c", "10.1.2.3", "999.1.2.3",
		"/etc/passwd", "~/.aws/credentials", "/run/secrets/eval/s-1/token", "/tmp/x/../y", "./rel", "xhttps://no.example/p", "HTTPS://Up.Example/q", "://", "http", "s3://b/k", "'", "\"", "|", ";", "=", ":", "(", " ", "  ", "$(", ")"}
	pick := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[r.Intn(len(pieces))])
			if r.Intn(2) == 0 {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	var cc cmdCache
	cached := func(ev *evidence.Event) bool {
		if cc.slots == nil {
			return false
		}
		p := cc.slots[cmdSlot(&cc, ev.Cmdline, ev.URL)]
		return p != nil && p.cmdline == ev.Cmdline && p.url == ev.URL
	}
	var seen []evidence.Event
	hits, collided, hosts, paths := 0, 0, 0, 0
	read := func(ev *evidence.Event) {
		if cached(ev) {
			hits++
		}
		got, want := parseCall(ev, asItIs, &cc), parseCallAsItWas(ev)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q %q path %q:\n got %+v\nwant %+v", ev.Cmdline, ev.URL, ev.Path, got, want)
		}
		for j := range got.hosts {
			got.hosts[j] = "changed" // as interning does, in place
		}
		hosts += len(want.hosts)
		paths += len(want.paths)
	}
	for i := range 5000 {
		ev := evidence.Event{ID: strconv.Itoa(i), Kind: evidence.KindToolCall, Agent: "agent-1", Tool: "shell",
			Cmdline: pick(1 + r.Intn(6))}
		if r.Intn(3) == 0 {
			ev.URL = pick(1)
		}
		if r.Intn(3) == 0 {
			ev.Path = []string{"/etc/passwd", "/tmp/x/../y", "~/.ssh"}[r.Intn(3)]
		}
		if len(seen) > 0 && r.Intn(2) == 0 {
			old := seen[r.Intn(len(seen))]
			ev.Cmdline, ev.URL = old.Cmdline, old.URL // a command run again
		}
		seen = append(seen, ev)
		read(&ev)
		if i%50 == 0 {
			// the same command with another URL in the same slot
			other := ev
			for n := 0; ; n++ {
				other.URL = "https://h" + strconv.Itoa(n) + ".example/"
				if cmdSlot(&cc, other.Cmdline, other.URL) == cmdSlot(&cc, ev.Cmdline, ev.URL) && other.URL != ev.URL {
					break
				}
			}
			read(&other)
			read(&ev)
			collided++
		}
	}
	t.Logf("%d of %d read from the cache, %d hosts, %d paths", hits, len(seen)+2*collided, hosts, paths)
	if hits < 1000 || hits > 4000 || hosts == 0 || paths == 0 {
		t.Fatalf("%d read from the cache, %d hosts, %d paths: the test must read both ways and find both", hits, hosts, paths)
	}
}
