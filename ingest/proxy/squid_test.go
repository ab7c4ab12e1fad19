package proxy_test

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/parsetest"
	"github.com/cordon-ir/cordon/ingest/proxy"
)

func TestSquidGolden(t *testing.T) {
	c := parsetest.ParseFile(t, proxy.NewSquid(), parsetest.Sample("squid", "logstash-patterns-core_squid_spec_lines.log"))
	if len(c.Events) != 2 || len(c.Rejects) != 0 {
		t.Fatalf("got %d events, %d rejects; want 2 and 0: %+v", len(c.Events), len(c.Rejects), c.Rejects)
	}
	parsetest.CheckGolden(t, "squid-logstash", c)
}

// squidCase is one hand-written line and the fields it must give.
type squidCase struct {
	name, line                string
	decision, status, method  string
	src, dstHost, dstIP, user string
	dstPort                   int
	tags                      string
	message                   string
}

// Lines as Squid 6 writes them (and a few Squid 2.x/3.x ones, marked old).
var squidCases = []squidCase{
	{name: "denied CONNECT",
		line:     "1774291000.123      0 10.0.3.7 TCP_DENIED/403 3868 CONNECT evil.example.com:443 - HIER_NONE/- text/html",
		decision: "deny", status: "403", method: "CONNECT", src: "10.0.3.7", dstHost: "evil.example.com", dstPort: 443,
		tags: "TCP_DENIED,HIER_NONE", message: "CONNECT evil.example.com:443 -> 403 TCP_DENIED"},
	{name: "allowed tunnel",
		line:     "1774291001.456  60213 10.0.3.7 TCP_TUNNEL/200 48211 CONNECT pypi.org:443 - HIER_DIRECT/151.101.0.223 -",
		decision: "allow", status: "200", method: "CONNECT", src: "10.0.3.7", dstHost: "pypi.org", dstIP: "151.101.0.223", dstPort: 443,
		tags: "TCP_TUNNEL,HIER_DIRECT", message: "CONNECT pypi.org:443 -> 200 TCP_TUNNEL"},
	{name: "client gone before headers",
		line:     "1774291002.001      0 10.0.3.7 NONE_NONE/000 0 - error:transaction-end-before-headers - HIER_NONE/- -",
		decision: "error", status: "000", src: "10.0.3.7",
		tags: "NONE_NONE,HIER_NONE", message: "error:transaction-end-before-headers -> 000 NONE_NONE"},
	{name: "aborted download",
		line:     "1774291003.789   1502 10.0.3.7 TCP_MISS_ABORTED/000 0 GET http://files.example.net/big.tar.gz - HIER_DIRECT/203.0.113.9 -",
		decision: "error", status: "000", method: "GET", src: "10.0.3.7", dstHost: "files.example.net", dstIP: "203.0.113.9", dstPort: 80,
		tags: "TCP_MISS_ABORTED,HIER_DIRECT", message: "GET http://files.example.net/big.tar.gz -> 000 TCP_MISS_ABORTED"},
	{name: "aborted tunnel",
		line:     "1774291003.990    840 10.0.3.7 TCP_TUNNEL_ABORTED/200 5120 CONNECT api.example.com:443 - HIER_DIRECT/198.51.100.4 -",
		decision: "error", status: "200", method: "CONNECT", src: "10.0.3.7", dstHost: "api.example.com", dstIP: "198.51.100.4", dstPort: 443,
		tags: "TCP_TUNNEL_ABORTED,HIER_DIRECT", message: "CONNECT api.example.com:443 -> 200 TCP_TUNNEL_ABORTED"},
	{name: "tunnel attempted, no server (Squid 6)",
		line:     "1774291003.995      5 10.0.3.7 TCP_TUNNEL/200 0 CONNECT exfil.example.net:443 - HIER_NONE/- -",
		decision: "error", status: "200", method: "CONNECT", src: "10.0.3.7", dstHost: "exfil.example.net", dstPort: 443,
		tags: "TCP_TUNNEL,HIER_NONE", message: "CONNECT exfil.example.net:443 -> 200 TCP_TUNNEL"},
	{name: "proxy could not reach the server",
		line:     "1774291004.250  30001 10.0.3.7 TCP_MISS/503 4123 GET http://unreachable.example.org/ - HIER_NONE/- text/html",
		decision: "error", status: "503", method: "GET", src: "10.0.3.7", dstHost: "unreachable.example.org", dstPort: 80,
		tags: "TCP_MISS,HIER_NONE", message: "GET http://unreachable.example.org/ -> 503 TCP_MISS"},
	{name: "server answered 503",
		line:     "1774291004.300     88 10.0.3.7 TCP_MISS/503 311 GET https://status.example.org:8443/ready - HIER_DIRECT/192.0.2.80 text/plain",
		decision: "allow", status: "503", method: "GET", src: "10.0.3.7", dstHost: "status.example.org", dstIP: "192.0.2.80", dstPort: 8443,
		tags: "TCP_MISS,HIER_DIRECT", message: "GET https://status.example.org:8443/ready -> 503 TCP_MISS"},
	{name: "proxy auth required",
		line:     "1774291005.000      0 10.0.3.7 TCP_DENIED/407 4012 GET http://example.com/ - HIER_NONE/- text/html",
		decision: "deny", status: "407", method: "GET", src: "10.0.3.7", dstHost: "example.com", dstPort: 80,
		tags: "TCP_DENIED,HIER_NONE", message: "GET http://example.com/ -> 407 TCP_DENIED"},
	{name: "authenticated user",
		line:     "1774291005.500     41 10.0.3.7 TCP_MISS/200 1024 POST http://api.example.com/upload agent-7 HIER_DIRECT/198.51.100.4 application/json",
		decision: "allow", status: "200", method: "POST", src: "10.0.3.7", dstHost: "api.example.com", dstIP: "198.51.100.4", dstPort: 80, user: "agent-7",
		tags: "TCP_MISS,HIER_DIRECT", message: "POST http://api.example.com/upload -> 200 TCP_MISS by agent-7"},
	{name: "IPv6 loopback client",
		line:     "1774291006.111     12 ::1 TCP_MISS/200 512 GET http://localhost:8080/health - HIER_DIRECT/127.0.0.1 application/json",
		decision: "allow", status: "200", method: "GET", src: "::1", dstHost: "localhost", dstIP: "127.0.0.1", dstPort: 8080,
		tags: "TCP_MISS,HIER_DIRECT", message: "GET http://localhost:8080/health -> 200 TCP_MISS"},
	{name: "IPv6 client and target",
		line:     "1774291006.222   9120 2001:db8::5 TCP_TUNNEL/200 7730 CONNECT [2001:db8::1]:443 - HIER_DIRECT/2001:db8::1 -",
		decision: "allow", status: "200", method: "CONNECT", src: "2001:db8::5", dstHost: "2001:db8::1", dstIP: "2001:db8::1", dstPort: 443,
		tags: "TCP_TUNNEL,HIER_DIRECT", message: "CONNECT [2001:db8::1]:443 -> 200 TCP_TUNNEL"},
	{name: "IPv4-mapped client from a dual-stack port",
		line:     "1774291006.333     30 ::ffff:10.0.3.7 TCP_MISS/200 2048 GET http://pypi.org/simple/ - HIER_DIRECT/151.101.0.223 text/html",
		decision: "allow", status: "200", method: "GET", src: "10.0.3.7", dstHost: "pypi.org", dstIP: "151.101.0.223", dstPort: 80,
		tags: "TCP_MISS,HIER_DIRECT", message: "GET http://pypi.org/simple/ -> 200 TCP_MISS"},
	{name: "denied raw IP with appended referer and user-agent",
		line:     `1774291007.000      0 10.0.3.7 TCP_DENIED/403 3868 CONNECT 1.2.3.4:80 - HIER_NONE/- text/html "-" "-"`,
		decision: "deny", status: "403", method: "CONNECT", src: "10.0.3.7", dstHost: "1.2.3.4", dstIP: "1.2.3.4", dstPort: 80,
		tags: "TCP_DENIED,HIER_NONE", message: "CONNECT 1.2.3.4:80 -> 403 TCP_DENIED"},
	{name: "old: tunnel logged as TCP_MISS with DIRECT",
		line:     "1157689324.156   1372 10.0.0.1 TCP_MISS/200 3201 CONNECT login.example.com:443 - DIRECT/207.58.145.61 -",
		decision: "allow", status: "200", method: "CONNECT", src: "10.0.0.1", dstHost: "login.example.com", dstIP: "207.58.145.61", dstPort: 443,
		tags: "TCP_MISS,DIRECT", message: "CONNECT login.example.com:443 -> 200 TCP_MISS"},
	{name: "old: failed upstream DIRECT/-",
		line:     "1157689412.821  60004 10.0.0.1 TCP_MISS/503 0 CONNECT mail.example.com:443 - DIRECT/- -",
		decision: "error", status: "503", method: "CONNECT", src: "10.0.0.1", dstHost: "mail.example.com", dstPort: 443,
		tags: "TCP_MISS,DIRECT", message: "CONNECT mail.example.com:443 -> 503 TCP_MISS"},
	{name: "old: DIRECT/hostname and a trailing field",
		line:     "1525334330.556      3 120.65.1.1 TCP_REFRESH_MISS/200 2014 GET http://www.sample.com/hellow_world.txt public-user DIRECT/www.sample.com text/plain 902351708.872",
		decision: "allow", status: "200", method: "GET", src: "120.65.1.1", dstHost: "www.sample.com", dstPort: 80, user: "public-user",
		tags: "TCP_REFRESH_MISS,DIRECT", message: "GET http://www.sample.com/hellow_world.txt -> 200 TCP_REFRESH_MISS by public-user"},
}

func TestSquidCases(t *testing.T) {
	for _, tc := range squidCases {
		t.Run(tc.name, func(t *testing.T) {
			if !proxy.NewSquid().Sniff([]byte(tc.line)) {
				t.Errorf("Sniff = false")
			}
			evs, err := proxy.NewSquid().Parse(parse.Record{Data: []byte(tc.line), Line: 1})
			if err != nil {
				t.Fatal(err)
			}
			for i := range evs {
				parse.Normalize(&evs[i]) // as the driver does
			}
			checkProxyEvent(t, evs, tc)
		})
	}
}

func checkProxyEvent(t *testing.T, evs []evidence.Event, tc squidCase) {
	t.Helper()
	if len(evs) != 1 {
		t.Fatalf("got %d events, want 1", len(evs))
	}
	ev := evs[0]
	got := squidCase{
		decision: ev.Decision, status: ev.Status, method: ev.Method, src: ev.SrcIP,
		dstHost: ev.DstHost, dstIP: ev.DstIP, dstPort: ev.DstPort, user: ev.User,
		tags: strings.Join(ev.Tags, ","), message: ev.Message,
	}
	want := tc
	want.name, want.line = "", ""
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if ev.Kind != evidence.KindNetRequest || ev.Time.IsZero() || ev.Agent != "" {
		t.Errorf("kind %q, time %v, agent %q", ev.Kind, ev.Time, ev.Agent)
	}
}

func TestSquidTimeIsCompletionTimeAsLogged(t *testing.T) {
	evs, err := proxy.NewSquid().Parse(parse.Record{Data: []byte(squidCases[1].line)})
	if err != nil {
		t.Fatal(err)
	}
	if got := evs[0].Time.Format("2006-01-02T15:04:05.000Z07:00"); got != "2026-03-23T18:36:41.456Z" {
		t.Errorf("time %s, want the logged end time 2026-03-23T18:36:41.456Z", got)
	}
	if evs[0].BytesIn != 48211 || evs[0].BytesOut != 0 {
		t.Errorf("bytes in %d out %d, want in 48211 (%%<st, sent to the client)", evs[0].BytesIn, evs[0].BytesOut)
	}
}

func TestSquidRejectsSayWhichFieldAndWhy(t *testing.T) {
	for line, want := range map[string]string{
		"1774291000.123 0 10.0.3.7 TCP_DENIED 3868 CONNECT evil.example.com:443 - HIER_NONE/- text/html":      `field 4 "TCP_DENIED": want result/status`,
		"1774291000.123 0 10.0.3.7 TCP_DENIED/4033 3868 CONNECT evil.example.com:443 - HIER_NONE/- text/html": `field 4 "TCP_DENIED/4033": want result/status`,
		"1774291000.123 0 10.0.3.7 TCP_DENIED/403 3868":                                                       "has 5 fields, want 10",
		"1774291000 0 10.0.3.7 TCP_DENIED/403 3868 CONNECT evil.example.com:443 - HIER_NONE/- text/html":      `field 1 "1774291000": want epoch`,
		"1774291000.123 0 agent-box TCP_DENIED/403 3868 CONNECT evil.example.com:443 - HIER_NONE/- text/html": `field 3 "agent-box": want client IP`,
		"1774291000.123 0 10.0.3.7 TCP_DENIED/403 -1 CONNECT evil.example.com:443 - HIER_NONE/- text/html":    `field 5 "-1": want reply size`,
		"1774291000.123 0 10.0.3.7 TCP_DENIED/403 3868 CONNECT evil.example.com:443 - HIER_NONE text/html":    `field 9 "HIER_NONE": want hierarchy/next-hop`,
		"99999999999999.123 0 10.0.3.7 TCP_DENIED/403 3868 CONNECT e.com:443 - HIER_NONE/- text/html":         "field 1",
	} {
		_, err := proxy.NewSquid().Parse(parse.Record{Data: []byte(line)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error saying %q", line, err, want)
		}
	}
}

func FuzzSquid(f *testing.F) {
	for _, tc := range squidCases {
		f.Add([]byte(tc.line))
	}
	parsetest.Fuzz(f, proxy.NewSquid(), parsetest.Sample("squid", "logstash-patterns-core_squid_spec_lines.log"))
}
