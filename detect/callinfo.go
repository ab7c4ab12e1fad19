package detect

import (
	"hash/maphash"
	"net"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// call is a ledger tool call as the Go correlations read it: the tool,
// the program a shell command runs, what it targets, and the call it
// retries.
type call struct {
	t        time.Time
	id       string // event id
	callID   string
	agent    string
	tool     string
	bin      string // base name of the program a command line runs
	path     string
	paths    []string // absolute paths the call names
	hosts    []string // hosts and IP literals the call names
	scheme   string
	port     int
	retryOf  string
	readOnly bool
}

var (
	retryRe   = regexp.MustCompile(`\(retry of ([^)\s]+)\)`)
	rawRetry  = regexp.MustCompile(`"retry_of"\s*:\s*"([^"]+)"`)
	urlRe     = regexp.MustCompile(`\b(?i:https?|ftp|wss?)://[^\s'"<>|;]+`)
	ipv4Re    = regexp.MustCompile(`\b(?:\d{1,3}\.){3}\d{1,3}\b`)
	absPathRe = regexp.MustCompile(`(?:^|[\s='"(<>:@])((?:/|~/)[^\s'"|;&<>()$*]+)`)
)

// parseCall reads a tool call; what it keeps of the event's strings goes
// through intern (the id and the call id are the event's own). What the
// command line and the URL name comes from cmds (nil: parsed here).
func parseCall(ev *evidence.Event, intern func(string) string, cmds *cmdCache) *call {
	c := &call{t: ev.Time, id: ev.ID, callID: ev.CallID, agent: intern(ev.Agent), tool: intern(ev.Tool), path: intern(ev.Path),
		readOnly: strings.Contains(ev.Raw, `"read_only":true`)}
	defer c.intern(intern)
	// Cheap checks first: the regular expressions run only on the few
	// calls that can match them.
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
	p := cmds.parts(ev.Cmdline, ev.URL)
	c.bin, c.scheme, c.port = p.bin, p.scheme, p.port
	c.hosts = slices.Clone(p.hosts) // interned in place
	if c.path != "" {
		c.paths = append(c.paths, path.Clean(c.path))
	}
	for _, q := range p.paths {
		c.paths = appendNew(c.paths, q)
	}
	return c
}

// cmdParts is what a call's command line and URL name: the program it
// runs, the hosts (and the scheme and port of the first URL), and the
// paths of the command, cleaned, in order, repeats kept.
type cmdParts struct {
	cmdline, url string
	bin, scheme  string
	port         int
	hosts, paths []string
}

// cmdCache keeps the parts of the commands parsed last, each in a slot
// by a hash of its command line and URL: an agent runs the same command
// again and again (of the bench incident's tool calls, three in five
// repeat one of the last thousand), and the regular expressions that
// parse one are most of what a call costs to read.
type cmdCache struct {
	seed  maphash.Seed
	slots *[cmdSlots]*cmdParts
}

const cmdSlots = 1024

// parts are what cmdline and url name, from the cache when they were
// parsed last in their slot.
func (cc *cmdCache) parts(cmdline, url string) *cmdParts {
	if cc == nil {
		return parseCmd(cmdline, url)
	}
	if cc.slots == nil {
		cc.seed, cc.slots = maphash.MakeSeed(), new([cmdSlots]*cmdParts)
	}
	slot := &cc.slots[cmdSlot(cc, cmdline, url)]
	if p := *slot; p != nil && p.cmdline == cmdline && p.url == url {
		return p
	}
	*slot = parseCmd(cmdline, url)
	return *slot
}

// cmdSlot is the slot of a command line and URL.
func cmdSlot(cc *cmdCache, cmdline, url string) uint64 {
	return (maphash.String(cc.seed, cmdline) + 31*maphash.String(cc.seed, url)) % cmdSlots
}

// parseCmd parses what cmdline and url name.
func parseCmd(cmdline, urlText string) *cmdParts {
	c := &cmdParts{cmdline: cmdline, url: urlText, bin: program(cmdline)}
	// the URLs of the command line, then of the URL (a URL ends at a
	// space, so none runs from one into the other)
	var inCmd [][]int
	if strings.Contains(cmdline, "://") {
		inCmd = urlRe.FindAllStringIndex(cmdline, -1)
	}
	for _, at := range inCmd {
		c.host(cmdline[at[0]:at[1]])
	}
	if strings.Contains(urlText, "://") {
		for _, u := range urlRe.FindAllString(urlText, -1) {
			c.host(u)
		}
	}
	for _, ip := range ipv4Re.FindAllString(dotted(cmdline), -1) {
		if net.ParseIP(ip) != nil {
			c.hosts = appendNew(c.hosts, ip)
		}
	}
	cmd := cmdline
	if len(inCmd) > 0 {
		// the URLs taken out, each for a space: their paths are not files
		var b strings.Builder
		last := 0
		for _, at := range inCmd {
			b.WriteString(cmdline[last:at[0]])
			b.WriteByte(' ')
			last = at[1]
		}
		b.WriteString(cmdline[last:])
		cmd = b.String()
	}
	if !strings.ContainsAny(cmd, "/~") {
		cmd = ""
	}
	for _, m := range absPathRe.FindAllStringSubmatch(cmd, -1) {
		p := m[1]
		if strings.HasPrefix(p, "~/") {
			p = "/home/~" + p[1:]
		}
		c.paths = append(c.paths, path.Clean(p))
	}
	return c
}

// host adds the host a URL names (and, for the first, its scheme and
// port), when it names one a command could reach.
func (c *cmdParts) host(u string) {
	p, err := url.Parse(u)
	if err != nil || p.Hostname() == "" || strings.ContainsAny(p.Hostname(), "$%{") {
		return
	}
	if c.scheme == "" {
		c.scheme = strings.ToLower(p.Scheme)
		c.port, _ = strconv.Atoi(p.Port())
	}
	c.hosts = appendNew(c.hosts, strings.ToLower(p.Hostname()))
}

// intern replaces the parsed values, which may be pieces of the event's
// command line, URL, message or raw record, by interned copies.
func (c *call) intern(intern func(string) string) {
	c.bin, c.scheme, c.retryOf = intern(c.bin), intern(c.scheme), intern(c.retryOf)
	for i := range c.paths {
		c.paths[i] = intern(c.paths[i])
	}
	for i := range c.hosts {
		c.hosts[i] = intern(c.hosts[i])
	}
}

// dotted returns s when it may hold an IPv4 literal (a digit, a dot and a
// digit), else "".
func dotted(s string) string {
	for i := 1; i+1 < len(s); i++ {
		if s[i] == '.' && s[i-1] >= '0' && s[i-1] <= '9' && s[i+1] >= '0' && s[i+1] <= '9' {
			return s
		}
	}
	return ""
}

// program is the base name of the program a command line runs, past
// variable assignments (HTTPS_PROXY=... git ...) and into the body of a
// shell loop or condition (for h in ...; do curl ...).
func program(cmdline string) string {
	words := strings.Fields(cmdline)
	depth := 0 // open $( and ( of an assignment's value, which may hold spaces
	for i := 0; i < len(words); i++ {
		w := words[i]
		if depth > 0 {
			depth += strings.Count(w, "(") - strings.Count(w, ")")
			continue
		}
		w = strings.TrimLeft(w, "({")
		if j := strings.IndexByte(w, '='); j > 0 && !strings.ContainsAny(w[:j], "/-$") {
			depth = max(0, strings.Count(w, "(")-strings.Count(w, ")"))
			continue
		}
		switch w {
		case "for", "while", "until", "if", "select", "case":
			for i+1 < len(words) && words[i] != "do" && words[i] != "then" {
				i++
			}
			continue
		case "do", "then", "":
			continue
		}
		return path.Base(w)
	}
	return ""
}

func appendNew(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// appendEvent adds ev's id to a list of the events behind a capability,
// which the pass builds in time order: the id can already be there only
// as the last one (another part of the same event's scan added it), or,
// for a session record, from the grants made before the first event. So
// the list is not searched for every event added, as appendNew would
// (a credential read a hundred thousand times made that quadratic).
func appendEvent(list []string, ev *evidence.Event) []string {
	if n := len(list); n > 0 && list[n-1] == ev.ID {
		return list
	}
	if attribution.SessionRecord(ev) {
		return appendNew(list, ev.ID)
	}
	return append(list, ev.ID)
}

// isDenied reports an event that records a refusal: a policy deny, a
// denied tool result, a proxy deny.
func isDenied(ev *evidence.Event) bool { return ev.Decision == evidence.DecisionDeny }

// destination is where a network event goes: its host, else its IP.
func destination(ev *evidence.Event) string {
	if ev.DstHost != "" {
		return strings.ToLower(strings.TrimSuffix(ev.DstHost, "."))
	}
	return ev.DstIP
}

// route is how a network event reaches its destination; two attempts at
// one destination by different routes are an adaptation.
type route struct {
	scheme string // http for plain proxy requests, https for CONNECT
	port   int
	user   string // proxy credential
	direct bool   // a connection the proxy never saw (sensor only)
	bin    string
}

func netRoute(ev *evidence.Event) route {
	r := route{port: ev.DstPort, user: ev.User, direct: ev.Source == evidence.SourceSensor}
	u := strings.ToLower(ev.URL)
	switch {
	case strings.HasPrefix(u, "http://"):
		r.scheme = "http"
		if r.port == 0 {
			r.port = 80
		}
	case strings.HasPrefix(u, "https://"), ev.Method == "CONNECT":
		r.scheme = "https"
	}
	if r.port == 0 && r.scheme == "https" {
		r.port = 443
	}
	if r.direct {
		r.bin = program(ev.Cmdline)
	}
	return r
}

// differs names the first way b reaches a destination that a does not,
// ignoring what either leaves unknown; "" when none.
func (a route) differs(b route) string {
	switch {
	case a.direct != b.direct:
		return "a direct connection"
	case a.scheme != "" && b.scheme != "" && a.scheme != b.scheme:
		return "over " + b.scheme
	case a.port != 0 && b.port != 0 && a.port != b.port:
		return "port " + strconv.Itoa(b.port)
	case a.user != "" && b.user != "" && a.user != b.user:
		return "credential " + b.user
	case a.bin != "" && b.bin != "" && a.bin != b.bin:
		return b.bin
	}
	return ""
}
