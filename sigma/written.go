package sigma

import (
	"sort"

	"github.com/cordon-ir/cordon/evidence"
)

// sourceFormats is what cordon's parsers write for one Sigma log source:
// the formats whose events it means, and, for each cordon field that only
// some of them write, those. A field not in partial is written by every
// format (when the record has it); one in partial with no format is
// written by none.
type sourceFormats struct {
	formats []string
	partial map[string][]string
}

var proxyFormats = []string{"squid", "squid-firewall", "squid-audit", "envoy", "envoy-text"}

// written is read off the parsers (ingest/proxy, ingest/tetragon,
// ingest/falco) and their golden files: Squid's native format has no
// User-Agent and no request size, gh-aw-firewall's format and Envoy's
// have the User-Agent, only Squid's native format the user (%un); the
// sensors report a connection's addresses, never the host name it was
// looked up by.
var written = map[string]sourceFormats{
	"proxy": {formats: proxyFormats, partial: map[string][]string{
		"user_agent": {"squid-firewall", "envoy", "envoy-text"},
		"user":       {"squid"},
		"bytes_in":   {"squid", "envoy", "envoy-text"},
		"bytes_out":  {"envoy", "envoy-text"},
		"src_port":   {"squid-firewall", "envoy", "envoy-text"},
	}},
	"process_creation":   {formats: []string{"tetragon", "falco"}},
	"file_event":         {formats: []string{"tetragon", "falco"}},
	"network_connection": {formats: []string{"tetragon", "falco"}, partial: map[string][]string{"dst_host": {}}},
}

// itemFormats is the formats whose events can hold a value of one of the
// fields (nil: any event can).
func (s *sourceFormats) itemFormats(fields []string) map[string]bool {
	if s == nil {
		return nil
	}
	out := map[string]bool{}
	for _, f := range fields {
		fs, ok := s.partial[f]
		if !ok {
			return nil
		}
		for _, x := range fs {
			out[x] = true
		}
	}
	return out
}

// sourceOf is the log source's table, or nil when cordon's own events
// (the ledger's, every event) are meant.
func sourceOf(ls Logsource) *sourceFormats {
	if s, ok := written[ls.Category]; ok && (ls.Product == "" || ls.Product == "linux" || ls.Category == "proxy") {
		return &s
	}
	return nil
}

// tri is a three-valued truth: what a condition can still be when the
// fields a format never writes are known to be absent.
type tri int

const (
	triFalse tri = iota
	triUnknown
	triTrue
)

// canFire reports whether some format of the log source can give an event
// the rule's filter matches: for each format, the items on fields it
// never writes are false (as Match judges them) and the others unknown.
func canFire(s *sourceFormats, p pred) (bool, []string) {
	if s == nil {
		return true, nil
	}
	var can []string
	for _, f := range s.formats {
		if eval(p, f) != triFalse {
			can = append(can, f)
		}
	}
	sort.Strings(can)
	return len(can) > 0, can
}

func eval(p pred, format string) tri {
	switch p := p.(type) {
	case andPred:
		out := triTrue
		for _, q := range p {
			out = min(out, eval(q, format))
		}
		return out
	case orPred:
		out := triFalse
		for _, q := range p {
			out = max(out, eval(q, format))
		}
		return out
	case notPred:
		return triTrue - eval(p.p, format)
	case *itemPred:
		if p.formats != nil && !p.formats[format] {
			return triFalse
		}
	}
	return triUnknown
}

// carried reports whether ev's format can hold the item's fields.
func (p *itemPred) carried(ev *evidence.Event) bool {
	return p.formats == nil || p.formats[ev.Format]
}

// unfedFields are the fields of p's items that some format of s never
// writes, sorted.
func unfedFields(s *sourceFormats, p pred) []string {
	seen := map[string]bool{}
	var walk func(pred)
	walk = func(p pred) {
		switch p := p.(type) {
		case andPred:
			for _, q := range p {
				walk(q)
			}
		case orPred:
			for _, q := range p {
				walk(q)
			}
		case notPred:
			walk(p.p)
		case *itemPred:
			if p.formats != nil {
				for _, f := range p.fields {
					seen[f] = true
				}
			}
		}
	}
	walk(p)
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
