package assist

import (
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/redact"
)

// clean makes one field of evidence safe to send: redacted first (so that
// nothing later can cut a secret in half), then one printable line, with
// no line or paragraph separator left raw and delimiter lookalikes
// defused.
func clean(s string, r *redact.Redactor) string {
	return neutralize(separators.Replace(evidence.Printable(r.Redact(s))))
}

// renderEvent builds the compact line the model reads:
//
//	id time agent kind decision | target | message
//
// capped at limit bytes. A line that reads like instructions to an AI is
// marked just before its message.
func renderEvent(ev evidence.Event, r *redact.Redactor, limit int, inFinding bool) PacketEvent {
	pe := PacketEvent{
		ID: ev.ID, Time: ev.Time.UTC(), Agent: clean(ev.Agent, r), Kind: clean(ev.Kind, r),
		Decision: clean(ev.Decision, r), Status: clean(ev.Status, r), Target: clean(ev.Target(), r),
		Message: clean(ev.Message, r), InFinding: inFinding,
	}
	target := orDash(pe.Target)
	if ev.URL != "" && !strings.Contains(ev.Message, ev.URL) {
		pe.URL = clean(ev.URL, r)
		target += " " + pe.URL
	}
	head := strings.Join([]string{pe.ID, pe.Time.Format("2006-01-02T15:04:05.000Z"), orDash(pe.Agent), orDash(pe.Kind), orDash(pe.Decision)}, " ")
	body := target + " | " + pe.Message
	if inFinding {
		head += " *"
	}
	// What is checked is what can be sent: the line is cut at limit.
	if ex, ok := instructionLike(capBytes(body, limit)); ok {
		pe.Flagged, pe.excerpt = true, ex
		head += " " + injectionMark
	}
	pe.Line = capBytes(head+" | "+body, limit)
	return pe
}

// renderFinding is a finding as the packet lists it: which events (by id)
// it rests on, so that claims about it can cite them.
func renderFinding(f detect.Finding, r *redact.Redactor, limit int) string {
	ids := f.Events
	more := ""
	if len(ids) > 12 {
		more = fmt.Sprintf(" (+%d more)", len(ids)-12)
		ids = ids[:12]
	}
	s := fmt.Sprintf("finding %s %s agent=%s severity=%s phase=%s %s..%s events=%s%s | %s",
		clean(f.ID, r), clean(f.Detector, r), orDash(clean(f.Agent, r)), clean(f.Severity, r), clean(f.Phase, r),
		f.Start.UTC().Format(time.TimeOnly), f.End.UTC().Format(time.TimeOnly),
		clean(strings.Join(ids, ","), r), more, clean(f.Title+": "+f.Explanation, r))
	return capBytes(s, limit)
}

// summarized reports whether a capability goes into a packet: everything
// acquired, and the credentials of the grant; the sandbox it was given and
// the destinations its allowlist names are the grant itself.
func summarized(c capability.Capability) bool {
	return c.Origin == capability.Acquired || c.Kind == capability.Credential
}

// renderCapability is one capability as the model reads it; its values
// (a credential id, a path) are evidence, redacted like every line.
// The verdict is the case's Assessment's, when it judged it: the model is
// told what cordon decided, never left to decide it.
func renderCapability(c capability.Capability, a *capability.Assessment, r *redact.Redactor, limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "capability %s %s %s agent=%s", clean(string(c.Kind), r), clean(string(c.Origin), r), clean(c.Value, r), orDash(clean(c.Agent, r)))
	if c.Owner != "" && c.Owner != c.Agent {
		fmt.Fprintf(&b, " owner=%s", clean(c.Owner, r))
	}
	fmt.Fprintf(&b, " uses=%d", c.UseCount())
	if u, ok := c.LastOK(); ok {
		fmt.Fprintf(&b, " last_ok=%s/%s", u.Time.UTC().Format(time.TimeOnly), clean(u.ID, r))
	}
	if c.BytesOut > 0 {
		fmt.Fprintf(&b, " bytes_out=%d allowlist=%s", c.BytesOut, clean(c.Allowlist, r))
	}
	if e, ok := c.Ended(); ok {
		fmt.Fprintf(&b, " ended=%s/%s %s (%s)", e.At.UTC().Format(time.TimeOnly), clean(e.ID, r), clean(e.How, r), clean(e.By, r))
	} else {
		b.WriteString(" ended=no")
	}
	for _, e := range c.Claims() {
		fmt.Fprintf(&b, " claimed_end=%s/%s", e.At.UTC().Format(time.TimeOnly), clean(e.ID, r))
	}
	if a != nil {
		if v, ok := a.Of(&c); ok {
			fmt.Fprintf(&b, " verdict=%q", string(v.State))
		}
	}
	if len(c.Acquired) > 0 {
		fmt.Fprintf(&b, " evidence=%s", clean(strings.Join(c.Acquired[:min(len(c.Acquired), 4)], ","), r))
	}
	b.WriteString(" | " + clean(c.How, r))
	return capBytes(b.String(), limit)
}

// choose picks the events to send within left tokens: all of them when
// they fit; otherwise the findings' events first (evenly thinned if even
// they do not fit), then the others evenly by time. It returns indexes in
// time order.
func choose(evs []evidence.Event, costs []int, inFinding map[string]bool, left int) []int {
	sum := 0
	for _, c := range costs {
		sum += c
	}
	if sum <= left {
		all := make([]int, len(evs))
		for i := range all {
			all[i] = i
		}
		return all
	}
	var first, rest []int
	for i, ev := range evs {
		if inFinding[ev.ID] {
			first = append(first, i)
		} else {
			rest = append(rest, i)
		}
	}
	var keep []int
	for _, group := range [][]int{first, rest} {
		for _, i := range spread(func(i int) time.Time { return evs[i].Time }, group) {
			if costs[i] > left {
				continue
			}
			left -= costs[i]
			keep = append(keep, i)
		}
	}
	sort.Ints(keep)
	return keep
}

// spread orders group (indexes into evs, in time order) so that any
// prefix of the result is spread evenly over the group's time span: the
// first, the last, then the events nearest successive midpoints.
func spread(at func(int) time.Time, group []int) []int {
	if len(group) <= 2 {
		return group
	}
	out := []int{group[0], group[len(group)-1]}
	taken := map[int]bool{0: true, len(group) - 1: true}
	type span struct{ a, b int } // positions in group, both taken
	queue := []span{{0, len(group) - 1}}
	for len(queue) > 0 && len(out) < len(group) {
		var next []span
		for _, s := range queue {
			if s.b-s.a < 2 {
				continue
			}
			mid := nearestTime(at, group, s.a, s.b)
			if !taken[mid] {
				taken[mid] = true
				out = append(out, group[mid])
			}
			next = append(next, span{s.a, mid}, span{mid, s.b})
		}
		queue = next
	}
	return out
}

// nearestTime is the position strictly between a and b whose event is
// nearest the midpoint in time of group[a] and group[b].
func nearestTime(at func(int) time.Time, group []int, a, b int) int {
	ta, tb := at(group[a]), at(group[b])
	mid := ta.Add(tb.Sub(ta) / 2)
	i := a + 1 + sort.Search(b-a-1, func(k int) bool { return !at(group[a+1+k]).Before(mid) })
	if i >= b {
		i = b - 1
	}
	if i > a+1 && mid.Sub(at(group[i-1])) < at(group[i]).Sub(mid) {
		i--
	}
	return i
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// capBytes cuts s to at most n bytes on a rune boundary, marking the cut.
func capBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = " …[cut]"
	cut := n - len(mark)
	for cut > 0 && cut < len(s) && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + mark
}

// evidenceText is the evidence block: the packet's account of itself,
// the findings, then one line per event.
func (p Packet) evidenceText() string {
	var b strings.Builder
	b.WriteString("# " + p.SentLine() + "\n")
	if len(p.Missing) > 0 {
		b.WriteString("# requested ids not in the index: " + strconv.Itoa(len(p.Missing)) + "\n")
	}
	if len(p.Injections) > 0 {
		b.WriteString("# " + strconv.Itoa(len(p.Injections)) + " lines are marked " + injectionMark + "\n")
	}
	b.WriteString("# line format: id time agent kind decision [* = evidence of a finding] | target | message\n")
	for _, l := range p.FindingLines {
		b.WriteString(l + "\n")
	}
	for _, l := range p.CapabilityLines {
		b.WriteString(l + "\n")
	}
	for _, e := range p.Events {
		b.WriteString(e.Line + "\n")
	}
	return b.String()
}
