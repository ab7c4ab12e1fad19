package detect

import (
	"net/netip"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// addrBook is what the evidence observed of the hosts an address served,
// so that a connection naming only an address (a sensor's) can be tied to
// a host a refusal named (the proxy's). A tie is taken only from a record
// that observed both:
//
//   - a dns_query event that carries the name asked (dst_host) and an
//     answer (dst_ip), from a sensor or a resolver's log;
//   - a proxy's record of a host and the address it reached it at: Squid's
//     only when its hierarchy code says it went to the origin itself
//     (HIER_DIRECT and the like; a parent's or a peer's address is
//     another proxy's), Envoy's upstream host;
//   - a sensor's connection that names both (Falco's fd.sip.name).
//
// Never from the ledger: a tool call's arguments and output are what the
// agent could have written, and a gateway's net_event is its account of a
// call, not an observation of the address. Nor from an audit log. An
// address a CDN serves for many hosts may be tied to several; the latest
// few are kept. Ties are learnt in event-time order, so a connection is
// judged by what was observed up to it.
type addrBook struct {
	byIP map[netip.Addr][]tie
}

// tie is one observation that an address served a host.
type tie struct {
	host string
	t    time.Time
	id   string // the event that observed it
	by   string // its format: squid, envoy, falco, ...
}

// maxTies bounds the hosts kept for one address.
const maxTies = 8

// directHier are Squid's hierarchy codes for a request it sent to the
// origin server itself, whose address is then the host's.
var directHier = map[string]bool{"HIER_DIRECT": true, "DIRECT": true, "CLOSEST_DIRECT": true,
	"NO_CACHE_DIGEST_DIRECT": true, "ORIGINAL_DST": true, "PINNED": true}

// observe learns the tie an event observes, if it observes one.
func (b *addrBook) observe(ev *evidence.Event) {
	if ev.DstIP == "" || ev.DstHost == "" {
		return
	}
	switch ev.Kind {
	case evidence.KindDNSQuery, evidence.KindNetRequest, evidence.KindNetConnect:
	default:
		return
	}
	switch {
	case ev.Source == evidence.SourceSensor:
	case ev.Source == evidence.SourceProxy && ev.Kind == evidence.KindDNSQuery:
	case ev.Source == evidence.SourceProxy && strings.HasPrefix(ev.Format, "squid"):
		if !hasDirectHier(ev.Tags) {
			return
		}
	case ev.Source == evidence.SourceProxy:
	default:
		return // the ledger's and an audit log's say what a client asked
	}
	key, ok := addrOf(ev.DstIP)
	if !ok {
		return
	}
	host := strings.ToLower(strings.TrimSuffix(ev.DstHost, "."))
	if _, isAddr := addrOf(host); isAddr {
		return
	}
	if b.byIP == nil {
		b.byIP = map[netip.Addr][]tie{}
	}
	list := b.byIP[key]
	for i := range list {
		if list[i].host == host {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) >= maxTies {
		list = list[1:]
	}
	b.byIP[key] = append(list, tie{host: host, t: ev.Time, id: ev.ID, by: ev.Format})
}

func hasDirectHier(tags []string) bool {
	for _, t := range tags {
		if directHier[t] {
			return true
		}
	}
	return false
}

// tieOf is the latest observation that the address ip served host, or
// nil when no source observed it.
func (b *addrBook) tieOf(ip, host string) *tie {
	list := b.tiesOf(ip)
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].host == host {
			return &list[i]
		}
	}
	return nil
}

// tiesOf is what the book holds of ip (read only).
func (b *addrBook) tiesOf(ip string) []tie {
	key, ok := addrOf(ip)
	if !ok {
		return nil
	}
	return b.byIP[key]
}

// addrOf is the address s writes, as net.ParseIP reads it (no zone; an
// IPv4 address written in IPv6 form is the IPv4 one), without the
// allocations of parsing it and writing it back: the book is asked of
// every network event a replay adds.
func addrOf(s string) (netip.Addr, bool) {
	if !mayBeAddr(s) {
		// a host name: parsing it would fail, making an error to say so
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// mayBeAddr is addrOf's cheap first look: an address is written in hex
// digits, dots and colons only.
func mayBeAddr(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// says is the tie as a finding names it: which source saw the address
// serve the host, and when.
func (t *tie) says(ip string) string {
	by := t.by
	if by == "" {
		by = "a record"
	}
	return ip + " is its address per " + by + " at " + t.t.UTC().Format("15:04:05")
}

// addressOnly reports a network event that names an address and no host:
// the connections a sensor sees.
func addressOnly(ev *evidence.Event) bool { return ev.DstHost == "" && ev.DstIP != "" }
