package assist

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Support is the mechanical support check of one claim: the concrete
// entities its text names (agents, sessions, hosts, IPs, paths,
// credential and other ids, event ids, counts with their unit, times)
// and those of them the events it cites do not hold. It cannot tell
// whether what the claim says of them (benign, exfiltrated, caused) is
// true: only that the things it names are in the evidence it cites.
type Support struct {
	Entities []string `json:"entities,omitempty"`
	// Missing says, per entity the cited events do not hold, what is
	// missing: `host transfer.sh`, `count "5 requests" (cites 4 events)`.
	Missing []string `json:"missing,omitempty"`
	// InPacket: some entity is not in the cited events but elsewhere in
	// the packet, which the offline answer's claims are checked against.
	InPacket bool `json:"in_packet,omitempty"`
}

// entity is one concrete thing a claim names.
type entity struct {
	kind, text string
	// for counts and durations
	n    float64
	unit string
}

func (e entity) String() string { return e.kind + " " + e.text }

// The shapes of entities, applied to the lower-cased claim text in this
// order; a span taken by one is blanked for the next, so that the port of
// 10.0.0.5:22 is not also read as the time 5:22.
var (
	entIP       = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}\b`)
	entURL      = regexp.MustCompile(`\b[a-z][a-z0-9+.-]*://[^\s"'<>]+`)
	entPath     = regexp.MustCompile(`(?:^|[\s("'\x60=])(~?/[^\s,;()"'\x60\]]+)`)
	entHost     = regexp.MustCompile(`\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9]\b`)
	entEventID  = regexp.MustCompile(`\b[0-9a-f]{16}\b`)
	entKeyed    = regexp.MustCompile(`\b(session|sandbox|container|pod|credential|cred|run|user|pid|process|call|exec|trace|model)(?:\s*[:=#]\s*|\s+)([a-z0-9][\w.-]*\d[\w.-]*|[a-z0-9]+[-_][\w.-]*[a-z0-9])\b`)
	entAgent    = regexp.MustCompile(`\bagent[-_][a-z0-9][\w.-]*[a-z0-9]\b|\bagent[-_][a-z0-9]\b`)
	entCred     = regexp.MustCompile(`\bcred-[\w.-]*[a-z0-9]\b`)
	entTime     = regexp.MustCompile(`\b(?:(\d{4}-\d{2}-\d{2})[t ])?([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d+)?)?(?:\s*(?:z|utc))?\b`)
	entSize     = regexp.MustCompile(`\b(\d+(?:\.\d+)?)\s*(kib|mib|gib|tib|kb|mb|gb|tb|bytes?|b)\b`)
	entDuration = regexp.MustCompile(`\b(\d+h)?(\d+m)?(\d+(?:\.\d+)?s)\b|\b(\d+(?:\.\d+)?)\s*(milliseconds?|ms|seconds?|secs?|minutes?|mins?|hours?|hrs?)\b`)
	entCount    = regexp.MustCompile(`\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?:[a-z_-]+\s+){0,2}?(events?|requests?|attempts?|denials?|connections?|tool[ _]calls?|calls?|times|tries|retries|probes?|destinations?|hosts?|domains?|files?|credentials?|secrets?|processes?|commands?|queries|lookups?|writes?|reads?|sessions?|agents?|findings?)\b`)
)

// fileExt: a dotted name ending in one of these is a file, not a host.
var fileExt = map[string]bool{"md": true, "txt": true, "py": true, "json": true, "jsonl": true, "yaml": true, "yml": true, "log": true,
	"go": true, "js": true, "csv": true, "conf": true, "pem": true, "key": true, "env": true, "zip": true, "tar": true, "gz": true, "so": true, "exe": true}

var numberWords = map[string]float64{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}

// entities lists what text names, each once, in the order found. ids
// are the packet's event ids and agents its agents, which a claim may
// name without the shapes above.
func entities(text string, ids map[string]bool, agents []string) []entity {
	s := strings.ToLower(text)
	var out []entity
	seen := map[string]bool{}
	add := func(e entity) {
		if !seen[e.String()] {
			seen[e.String()] = true
			out = append(out, e)
		}
	}
	blank := func(loc []int) { s = s[:loc[0]] + strings.Repeat(" ", loc[1]-loc[0]) + s[loc[1]:] }
	take := func(re *regexp.Regexp, group int, each func(m []string, loc []int)) {
		for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
			m := make([]string, len(loc)/2)
			for i := range m {
				if loc[2*i] >= 0 {
					m[i] = s[loc[2*i]:loc[2*i+1]]
				}
			}
			each(m, loc)
			blank(loc[2*group : 2*group+2])
		}
	}
	trim := func(v string) string { return strings.TrimRight(v, ".,:;!?") }
	take(entURL, 0, func(m []string, _ []int) { add(entity{kind: "url", text: trim(m[0])}) })
	take(entIP, 0, func(m []string, _ []int) { add(entity{kind: "ip", text: m[0]}) })
	take(entPath, 1, func(m []string, _ []int) {
		if p := trim(m[1]); len(p) > 1 {
			add(entity{kind: "path", text: p})
		}
	})
	take(entEventID, 0, func(m []string, _ []int) { add(entity{kind: "event", text: m[0]}) })
	for id := range ids {
		if len(id) >= 3 && wordIn(s, strings.ToLower(id)) {
			add(entity{kind: "event", text: strings.ToLower(id)})
		}
	}
	take(entCred, 0, func(m []string, _ []int) { add(entity{kind: "credential", text: m[0]}) })
	take(entAgent, 0, func(m []string, _ []int) { add(entity{kind: "agent", text: m[0]}) })
	for _, a := range agents {
		if a = strings.ToLower(a); len(a) >= 3 && wordIn(s, a) {
			add(entity{kind: "agent", text: a})
		}
	}
	take(entKeyed, 2, func(m []string, _ []int) {
		kind := m[1]
		if kind == "cred" {
			kind = "credential"
		}
		add(entity{kind: kind, text: trim(m[2])})
	})
	take(entHost, 0, func(m []string, _ []int) {
		kind := "host"
		if fileExt[m[0][strings.LastIndexByte(m[0], '.')+1:]] {
			kind = "file"
		}
		add(entity{kind: kind, text: m[0]})
	})
	take(entTime, 0, func(m []string, _ []int) { add(entity{kind: "time", text: strings.TrimSpace(m[0])}) })
	take(entSize, 0, func(m []string, _ []int) {
		n, _ := strconv.ParseFloat(m[1], 64)
		add(entity{kind: "size", text: m[0], n: n * sizeUnit(m[2])})
	})
	take(entDuration, 0, func(m []string, _ []int) {
		var d time.Duration
		if m[3] != "" {
			d, _ = time.ParseDuration(m[1] + m[2] + m[3])
		} else {
			n, _ := strconv.ParseFloat(m[4], 64)
			d = time.Duration(n * float64(durationUnit(m[5])))
		}
		add(entity{kind: "duration", text: m[0], n: d.Seconds()})
	})
	take(entCount, 0, func(m []string, _ []int) {
		n, ok := numberWords[m[1]]
		if !ok {
			n, _ = strconv.ParseFloat(m[1], 64)
		}
		add(entity{kind: "count", text: m[0], n: n, unit: m[2]})
	})
	return out
}

// wordIn reports whether w occurs in s not inside a longer word.
func wordIn(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(w)
		if (at == 0 || !wordByte(s[at-1])) && (end == len(s) || !wordByte(s[end])) {
			return true
		}
		i = at + 1
	}
}

func wordByte(c byte) bool {
	return c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z'
}

func sizeUnit(u string) float64 {
	switch u {
	case "kb":
		return 1e3
	case "mb":
		return 1e6
	case "gb":
		return 1e9
	case "tb":
		return 1e12
	case "kib":
		return 1 << 10
	case "mib":
		return 1 << 20
	case "gib":
		return 1 << 30
	case "tib":
		return 1 << 40
	}
	return 1
}

func durationUnit(u string) time.Duration {
	switch {
	case u == "ms" || strings.HasPrefix(u, "milli"):
		return time.Millisecond
	case strings.HasPrefix(u, "s"):
		return time.Second
	case strings.HasPrefix(u, "m"):
		return time.Minute
	}
	return time.Hour
}

// check is the support check of claim c against the events it cites in
// p. With whole, an entity the cited events lack may be found in any
// event of p instead: the claims of the offline answer are computed by
// rules over the whole packet (how many events agent-7 has), and cite a
// few of its events as pointers, not as the whole of what they count.
func check(c Claim, p Packet, whole bool) Support {
	var agents []string
	ids := map[string]bool{}
	var cited []PacketEvent
	for _, e := range p.Events {
		ids[e.ID] = true
		if e.Agent != "" && !slices.Contains(agents, e.Agent) {
			agents = append(agents, e.Agent)
		}
		if slices.Contains(c.EventIDs, e.ID) {
			cited = append(cited, e)
		}
	}
	citedScope := newScope(cited, fmt.Sprintf("the claim cites %d events", len(cited)), "the cited events")
	var packetScope scope
	if whole {
		packetScope = newScope(p.Events, fmt.Sprintf("the packet holds %d events", len(p.Events)), "the packet")
		// the offline answer restates cordon's own findings and
		// capabilities, which the packet carries as lines of their own:
		// what it says of them is in the packet, not made up
		extra := strings.ToLower(strings.Join(append(append([]string{}, p.FindingLines...), p.CapabilityLines...), "\n"))
		packetScope.text += "\n" + extra
	}
	var s Support
	for _, e := range entities(c.Text, ids, agents) {
		s.Entities = append(s.Entities, e.String())
		why, ok := supported(e, citedScope, c.EventIDs)
		if !ok && whole {
			why, ok = supported(e, packetScope, c.EventIDs)
			s.InPacket = s.InPacket || ok
		}
		if !ok {
			s.Missing = append(s.Missing, why)
		}
	}
	return s
}

// scope is the events an entity is looked for in: their lines as sent,
// lower-cased, and how to name them in what is missing.
type scope struct {
	evs         []PacketEvent
	text        string
	count, name string
}

func newScope(evs []PacketEvent, count, name string) scope {
	lines := make([]string, len(evs))
	for i, e := range evs {
		lines[i] = strings.ToLower(e.Line)
	}
	return scope{evs: evs, text: strings.Join(lines, "\n"), count: count, name: name}
}

// supported reports whether the cited events (their lines as sent, and
// their times) hold e, and if not, says what is missing.
func supported(e entity, sc scope, cited []string) (string, bool) {
	text, evs := sc.text, sc.evs
	notIn := fmt.Sprintf("%s %q is not in %s", e.kind, e.text, sc.name)
	switch e.kind {
	case "event":
		for _, id := range cited {
			if strings.ToLower(id) == e.text {
				return "", true
			}
		}
		return fmt.Sprintf("event %s is named but not cited", e.text), false
	case "time":
		for _, ev := range evs {
			if timeMatches(e.text, ev.Time) {
				return "", true
			}
		}
		return notIn, strings.Contains(text, e.text)
	case "size":
		for _, m := range entSize.FindAllStringSubmatch(text, -1) {
			n, _ := strconv.ParseFloat(m[1], 64)
			if near(n*sizeUnit(m[2]), e.n, 0.05) {
				return "", true
			}
		}
		for _, m := range bytesField.FindAllStringSubmatch(text, -1) {
			n, _ := strconv.ParseFloat(m[1], 64)
			if near(n, e.n, 0.05) {
				return "", true
			}
		}
		return notIn, false
	case "duration":
		if len(evs) > 1 {
			span := evs[len(evs)-1].Time.Sub(evs[0].Time)
			for _, ev := range evs {
				span = max(span, ev.Time.Sub(evs[0].Time), evs[0].Time.Sub(ev.Time))
			}
			if near(span.Seconds(), e.n, 0.1) || math.Abs(span.Seconds()-e.n) <= 1 {
				return "", true
			}
		}
		return notIn, strings.Contains(text, e.text)
	case "count":
		if countMatches(e, evs) || strings.Contains(text, e.text) {
			return "", true
		}
		return fmt.Sprintf("count %q (%s)", e.text, sc.count), false
	}
	return notIn, strings.Contains(text, e.text)
}

// bytesField is a byte count as evidence lines write it (bytes_out=1234).
var bytesField = regexp.MustCompile(`bytes\w*[=:]\s*(\d+)`)

// countMatches: a count is supported by the cited events when it is how
// many they are, or how many distinct targets, agents or kinds they have.
func countMatches(e entity, evs []PacketEvent) bool {
	n := int(e.n)
	if float64(n) != e.n || n == 0 {
		return false
	}
	if n == len(evs) {
		return true
	}
	// "agent-7: 10 events", "1 event without an agent"
	perAgent := map[string]int{}
	for _, ev := range evs {
		perAgent[ev.Agent]++
	}
	for _, k := range perAgent {
		if k == n {
			return true
		}
	}
	distinct := func(f func(PacketEvent) string) int {
		seen := map[string]bool{}
		for _, ev := range evs {
			if v := f(ev); v != "" {
				seen[v] = true
			}
		}
		return len(seen)
	}
	return n == distinct(func(ev PacketEvent) string { return ev.Target }) ||
		n == distinct(func(ev PacketEvent) string { return ev.Agent }) ||
		n == distinct(func(ev PacketEvent) string { return ev.Kind })
}

// timeMatches reports whether the time written as text (HH:MM, HH:MM:SS,
// with a date or not) is t's, in UTC, to the precision written.
func timeMatches(text string, t time.Time) bool {
	m := entTime.FindStringSubmatch(text)
	if m == nil {
		return false
	}
	t = t.UTC()
	if m[1] != "" && m[1] != t.Format(time.DateOnly) {
		return false
	}
	h, _ := strconv.Atoi(m[2])
	mi, _ := strconv.Atoi(m[3])
	if h != t.Hour() || mi != t.Minute() {
		return false
	}
	if m[4] != "" {
		sec, _ := strconv.Atoi(m[4])
		return sec == t.Second()
	}
	return true
}

func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}
