package assist

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/redact"
)

// OfflineModel is the model name an offline result carries.
const OfflineModel = "offline"

// maxCite bounds the ids one offline claim cites.
const maxCite = 10

// Offline answers summarize and timeline without a model: deterministic
// rules over the packet, in the same claims shape, every claim citing the
// packet's events. Other tasks fail with ErrNeedsEndpoint.
func Offline(task Task, p Packet, findings []detect.Finding) (Result, error) {
	if !task.Valid() {
		return Result{}, fmt.Errorf("%w %q: want one of %s", ErrUnknownTask, task, taskList())
	}
	r := p.redactor.Clone()
	var a Answer
	switch task {
	case TaskSummarize:
		a = offlineSummary(p, findings, r)
	case TaskTimeline:
		a = offlineTimeline(p, findings, r)
	default:
		return Result{}, fmt.Errorf("%w: %s needs a model (set %s or %s); offline, only summarize and timeline work", ErrNeedsEndpoint, task, EnvBaseURL, EnvAPIKey)
	}
	a.Offline, a.Structured = true, true
	return Result{
		Task: task, Model: OfflineModel, EventIDs: p.EventIDs(), Sent: p.Sent, Total: p.Total, Account: p.SentLine(),
		Redactions: r.Count(), Injections: p.Injections, Answer: Verify(a, p), Offline: true,
	}, nil
}

func offlineSummary(p Packet, findings []detect.Finding, r *redact.Redactor) Answer {
	a := Answer{Notes: offlineNote(p, "summary")}
	evs := p.Events
	if len(evs) == 0 {
		a.Notes += "; the selection holds no events"
		return a
	}
	first, last := evs[0], evs[len(evs)-1]
	byAgent := map[string][]PacketEvent{}
	for _, e := range evs {
		byAgent[e.Agent] = append(byAgent[e.Agent], e)
	}
	agents := sortedAgents(byAgent)
	a.Claims = append(a.Claims,
		Claim{Text: fmt.Sprintf("%s from %s between %s and %s.", plural(len(evs), "event"), agentsPhrase(byAgent), stamp(first.Time), stamp(last.Time)), EventIDs: ids(first, last)},
		Claim{Text: "First event: " + describe(first), EventIDs: ids(first)},
		Claim{Text: "Last event: " + describe(last), EventIDs: ids(last)},
	)
	for _, ag := range agents {
		aes := byAgent[ag]
		var denied []PacketEvent
		kinds := map[string]int{}
		for _, e := range aes {
			kinds[e.Kind]++
			if e.Decision == evidence.DecisionDeny {
				denied = append(denied, e)
			}
		}
		text := fmt.Sprintf("%s: %s (%s), %d denied, from %s to %s.", agentName(ag), plural(len(aes), "event"), topCounts(kinds, 4), len(denied), stamp(aes[0].Time), stamp(aes[len(aes)-1].Time))
		cite := ids(aes[0], aes[len(aes)-1])
		if len(denied) > 0 {
			cite = appendID(cite, denied[0].ID)
		}
		a.Claims = append(a.Claims, Claim{Text: text, EventIDs: cite, Phase: "attribute"})
	}
	a.Claims = append(a.Claims, deniedDestinations(evs, 5)...)
	a.Claims = append(a.Claims, findingClaims(p, findings, r)...)
	for _, e := range evs {
		if e.Kind == evidence.KindSessionEnd {
			ph := "review"
			if e.Status == "killed" {
				ph = "contain"
			}
			a.Claims = append(a.Claims, Claim{Text: fmt.Sprintf("%s's session ended (%s) at %s.", agentName(e.Agent), orDash(e.Status), stamp(e.Time)), EventIDs: ids(e), Phase: ph})
		}
	}
	if len(p.Injections) > 0 {
		var cite []string
		for _, f := range p.Injections {
			cite = appendID(cite, f.EventID)
		}
		a.Claims = append(a.Claims, Claim{Text: fmt.Sprintf("%s text addressed to an AI model; it was quoted as data and not followed.", plural(len(p.Injections), "event")+map[bool]string{true: " holds", false: " hold"}[len(p.Injections) == 1]),
			// every one cited: the count is of them, and so checkable
			EventIDs: cite, Phase: "triage"})
	}
	return a
}

// deniedDestinations are the n most denied targets, most denials first.
func deniedDestinations(evs []PacketEvent, n int) []Claim {
	type dest struct {
		target string
		evs    []PacketEvent
		agents map[string]bool
	}
	byTarget := map[string]*dest{}
	for _, e := range evs {
		if e.Decision != evidence.DecisionDeny || e.Target == "" {
			continue
		}
		d := byTarget[e.Target]
		if d == nil {
			d = &dest{target: e.Target, agents: map[string]bool{}}
			byTarget[e.Target] = d
		}
		d.evs = append(d.evs, e)
		d.agents[agentName(e.Agent)] = true
	}
	var ds []*dest
	for _, d := range byTarget {
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool {
		if len(ds[i].evs) != len(ds[j].evs) {
			return len(ds[i].evs) > len(ds[j].evs)
		}
		return ds[i].target < ds[j].target
	})
	var out []Claim
	for _, d := range ds[:min(n, len(ds))] {
		var cite []string
		for _, e := range d.evs {
			cite = appendID(cite, e.ID)
		}
		out = append(out, Claim{
			Text:     fmt.Sprintf("Denied destination %s: %s by %s.", d.target, plural(len(d.evs), "denial"), strings.Join(sortedKeys(d.agents), ", ")),
			EventIDs: capIDs(cite), Phase: "detect",
		})
	}
	return out
}

// findingClaims states each finding, citing its events that the packet
// carries (a finding none of whose events were sent stays uncited).
func findingClaims(p Packet, findings []detect.Finding, r *redact.Redactor) []Claim {
	var out []Claim
	for _, f := range findings {
		var cite []string
		for _, id := range f.Events {
			if p.Has(id) {
				cite = appendID(cite, id)
			}
		}
		text := fmt.Sprintf("Finding [%s] %s (%s, %s, %s–%s): %s", f.Severity, f.Title, f.Detector, agentName(f.Agent),
			stamp(f.Start), stamp(f.End), f.Explanation)
		out = append(out, Claim{Text: clean(text, r), EventIDs: capIDs(cite), Phase: phase(f.Phase)})
	}
	return out
}

func offlineNote(p Packet, what string) string {
	s := fmt.Sprintf("offline %s, built by rules without a model; %s", what, p.SentLine())
	if len(p.Missing) > 0 {
		s += fmt.Sprintf("; %d requested ids are not in the index", len(p.Missing))
	}
	return s
}

func describe(e PacketEvent) string {
	s := fmt.Sprintf("%s %s %s", stamp(e.Time), agentName(e.Agent), e.Kind)
	if e.Decision != "" {
		s += " " + e.Decision
	}
	if e.Target != "" {
		s += " " + e.Target
	}
	if e.URL != "" {
		s += " " + e.URL
	}
	if e.Kind == evidence.KindSessionEnd && e.Status != "" {
		s += " (" + e.Status + ")"
	}
	if e.Message != "" {
		s += ": " + capBytes(e.Message, 120)
	}
	return s
}

func stamp(t time.Time) string { return t.UTC().Format("15:04:05") }

func agentName(a string) string {
	if a == "" {
		return "(no agent)"
	}
	return a
}

func ids(evs ...PacketEvent) []string {
	var out []string
	for _, e := range evs {
		out = appendID(out, e.ID)
	}
	return out
}

func appendID(ids []string, id string) []string {
	for _, x := range ids {
		if x == id {
			return ids
		}
	}
	return append(ids, id)
}

func capIDs(ids []string) []string { return ids[:min(len(ids), maxCite)] }

// sortedAgents: most events first, then by name, the unnamed last.
func sortedAgents(m map[string][]PacketEvent) []string {
	out := sortedKeys(m)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a == "") != (b == "") {
			return b == ""
		}
		return len(m[a]) > len(m[b])
	})
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// topCounts renders the n largest counts, "kind 12, kind 3".
func topCounts(m map[string]int, n int) string {
	keys := sortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	var parts []string
	for _, k := range keys[:min(n, len(keys))] {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(keys) > n {
		parts = append(parts, fmt.Sprintf("%d other kinds", len(keys)-n))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// agentsPhrase: "2 agents", "2 agents and 1 event without an agent".
func agentsPhrase(byAgent map[string][]PacketEvent) string {
	n := len(byAgent)
	none := len(byAgent[""])
	if none > 0 {
		n--
	}
	s := plural(n, "agent")
	if none > 0 {
		s += " (" + plural(none, "event") + " without an agent)"
	}
	return s
}
