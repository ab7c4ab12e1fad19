package proxy

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// squid parses Squid's native access.log (logformat squid):
//
//	%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt
//
// The time is when Squid wrote the entry, the end of the transaction (its
// start is about %ts - %tr ms). It is kept as logged: a long CONNECT tunnel
// sorts where it closed, which is also where it appears in the file.
type squid struct{}

// NewSquid returns the parser for Squid's native access.log format.
func NewSquid() parse.Parser { return squid{} }

func (squid) Format() string         { return "squid" }
func (squid) Source() string         { return evidence.SourceProxy }
func (squid) Framing() parse.Framing { return parse.Lines }

// Sniff accepts a line that parses: ten fields typed as the native format
// types them, which a firewall_detailed line (ip:port second) never is.
func (p squid) Sniff(rec []byte) bool {
	_, err := p.Parse(parse.Record{Data: rec})
	return err == nil
}

// Parse accepts trailing fields after %mt: Squid 2.x lines, log_mime_hdrs
// blobs and deployments that append "referer" "user-agent".
func (squid) Parse(rec parse.Record) ([]evidence.Event, error) {
	f := strings.Fields(string(rec.Data))
	if len(f) < 10 {
		return nil, fmt.Errorf("squid line has %d fields, want 10", len(f))
	}
	t, err := squidTime(f[0])
	if err != nil {
		return nil, fieldErr(1, f[0], "epoch seconds.milliseconds")
	}
	if !isInt(f[1]) {
		return nil, fieldErr(2, f[1], "elapsed milliseconds")
	}
	if !parse.IsIP(f[2]) {
		return nil, fieldErr(3, f[2], "client IP")
	}
	tag, status, ok := squidResult(f[3], "/")
	if !ok {
		return nil, fieldErr(4, f[3], "result/status")
	}
	size, err := strconv.ParseInt(f[4], 10, 64)
	if err != nil || size < 0 {
		return nil, fieldErr(5, f[4], "reply size in bytes")
	}
	hier, hop, ok := strings.Cut(f[8], "/")
	if !ok || !isSquidCode(hier) {
		return nil, fieldErr(9, f[8], "hierarchy/next-hop")
	}
	user := parse.Clean(f[7])
	if u, err := url.PathUnescape(user); err == nil {
		user = u
	}
	elapsed, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || elapsed < 0 {
		return nil, fieldErr(2, f[1], "elapsed milliseconds")
	}
	x := squidTxn{
		time: t, elapsed: elapsed, client: f[2], tag: tag, hier: hier, status: status,
		method: f[5], url: f[6], user: user, hop: hop, size: size,
	}
	return x.events()
}

// squidTxn is one Squid transaction, whichever logformat carried it.
type squidTxn struct {
	time        time.Time
	elapsed     int64  // %tr: milliseconds; the time is the transaction's end
	client      string // %>a
	clientPort  int    // %>p, custom formats only
	tag, hier   string // %Ss, %Sh
	status      string // %>Hs, "000" when no reply was sent
	method, url string // %rm, %ru
	user        string // %un
	host        string // %{Host}>h, custom formats only
	hop         string // %<a: next-hop server or peer
	hopPort     int    // %<p, custom formats only
	size        int64  // %<st: bytes sent to the client
	userAgent   string // %{User-Agent}>h, custom formats only
}

// events is the transaction's event, or why a number in it is none.
func (x squidTxn) events() ([]evidence.Event, error) {
	var num parse.Numbers
	ev := evidence.Event{
		Time: x.time, Kind: evidence.KindNetRequest,
		SrcIP: (x.client), SrcPort: x.clientPort,
		URL: parse.Clean(x.url), Method: parse.Clean(x.method), Status: x.status, User: x.user,
		BytesIn: x.size, Tags: nonEmpty(x.tag, x.hier), DurationMS: x.elapsed,
		Decision:  squidDecision(x.tag, x.status, x.hop),
		UserAgent: x.userAgent,
	}
	ev.DstHost, ev.DstPort = num.URLTarget("url", x.url)
	if ev.DstHost == "" {
		host, port := num.HostPort("host", x.host)
		ev.DstHost, ev.DstPort = strings.ToLower(host), port
	}
	hop := parse.Clean(x.hop)
	switch {
	case parse.IsIP(hop):
		ev.DstIP = (hop)
		if x.hopPort != 0 {
			ev.DstPort = x.hopPort
		}
	case hop == "" && parse.IsIP(ev.DstHost):
		ev.DstIP = (ev.DstHost)
	}
	by := ""
	if x.user != "" {
		by = "by " + x.user
	}
	ev.Message = parse.Message(x.method, x.url, "->", x.status, x.tag, by)
	if err := num.Err(); err != nil {
		return nil, err
	}
	return []evidence.Event{ev}, nil
}

// squidDecision: the proxy refused (DENIED), failed or never answered
// (no status, aborted, no result, a 5xx or a tunnel with no server behind
// it), or let the request through.
func squidDecision(tag, status, hop string) string {
	switch {
	case strings.Contains(tag, "DENIED"):
		return evidence.DecisionDeny
	case status == "000", strings.Contains(tag, "_ABORTED"),
		strings.HasPrefix(tag, "NONE"), tag == "TAG_NONE":
		return evidence.DecisionError
	case strings.HasPrefix(status, "5") && parse.Absent(hop):
		return evidence.DecisionError
	case strings.Contains(tag, "TUNNEL") && parse.Absent(hop):
		// Squid 6 logs TCP_TUNNEL for an attempted tunnel too: with no
		// server behind it, none was opened.
		return evidence.DecisionError
	}
	return evidence.DecisionAllow
}

// squidResult splits "TCP_DENIED/403" (or "TCP_DENIED:HIER_NONE" style
// pairs with sep ":") into a result tag and a three-digit status.
func squidResult(s, sep string) (tag, status string, ok bool) {
	tag, code, ok := strings.Cut(s, sep)
	if !ok || !isSquidTag(tag) {
		return "", "", false
	}
	status, ok = httpStatus(code)
	return tag, status, ok
}

// httpStatus renders a status code of 1-3 digits as three ("0" -> "000",
// Squid's and Envoy's "no reply sent").
func httpStatus(code string) (string, bool) {
	if len(code) == 0 || len(code) > 3 || !isInt(code) {
		return "", false
	}
	n, _ := strconv.Atoi(code)
	return fmt.Sprintf("%03d", n), true
}

// isSquidTag reports a result code like TCP_MISS, TCP_DENIED_REPLY,
// NONE_NONE, TCP_TUNNEL_ABORTED (src/LogTags.cc).
func isSquidTag(s string) bool {
	return isSquidCode(s) && (strings.HasPrefix(s, "TCP_") || strings.HasPrefix(s, "UDP_") ||
		strings.HasPrefix(s, "NONE") || s == "TAG_NONE")
}

// isSquidCode reports an upper-case code: a result tag or hierarchy code.
func isSquidCode(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < 'A' || c > 'Z') && c != '_' {
			return false
		}
	}
	return true
}

// squidTime parses %ts.%03tu, strictly: digits, a dot, three digits.
func squidTime(s string) (time.Time, error) {
	if !isEpochMillis(s) {
		return time.Time{}, fmt.Errorf("bad epoch time %q", clip(s))
	}
	return epochTime(s)
}

// epochTime is EpochSeconds limited to years 1970-9999, which every log
// time is and which an event's time can be written in.
func epochTime(s string) (time.Time, error) {
	t, err := parse.EpochSeconds(s)
	if err == nil && (t.Year() < 1970 || t.Year() > 9999) {
		err = fmt.Errorf("epoch time %q out of range", clip(s))
	}
	return t, err
}

func isEpochMillis(s string) bool {
	sec, ms, ok := strings.Cut(s, ".")
	return ok && len(sec) > 0 && len(sec) <= 12 && len(ms) == 3 && isDigits(sec) && isDigits(ms)
}

func isInt(s string) bool {
	return isDigits(strings.TrimPrefix(s, "-"))
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// fieldErr says which field of a line is wrong and what was expected,
// quoting at most 64 bytes of what was found.
func fieldErr(n int, got, want string) error {
	return fmt.Errorf("field %d %q: want %s", n, clip(got), want)
}

// clip shortens a value quoted in a reject reason; the reject keeps the
// whole record.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

func nonEmpty(vals ...string) []string {
	var out []string
	for _, v := range vals {
		if v = parse.Clean(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
