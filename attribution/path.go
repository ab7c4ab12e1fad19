package attribution

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Path explains, in one line, how a proxy, sensor or audit-log event is tied
// to an agent with the session records the store holds now: the key it
// carried, the sandbox session that key belonged to, and the agent, e.g.
// "10.0.3.7 → sandbox sb-42 (10:00:00–10:47:20) → agent-7 via src_ip". It
// returns "" for events attribution does not concern (ledger records).
// The line quotes evidence: render it through the console's Fit.
func Path(ctx context.Context, st evidence.Reader, ev evidence.Event) (string, error) {
	if ev.Source != evidence.SourceProxy && ev.Source != evidence.SourceSensor && ev.Source != evidence.SourceAudit {
		return "", nil
	}
	if !Attributable(&ev) {
		return "not attributed: the event carries no container, pod, source IP or credential", nil
	}
	if ev.AttributedVia == ViaResponder {
		// decided in time order with the process tree, which one event
		// alone does not show: say what decided it
		who := strings.TrimPrefix(ev.Who(), "(")
		return keyOf(ev) + " → a responder's exec into " + ev.Pod + " → " + strings.TrimSuffix(who, ")") + " (pid " + strconv.Itoa(ev.Pid) + ", started under it; the API server's audit log or the kill switch's journal names who opened the exec, by the credential they used)", nil
	}
	id, err := SessionIdentity(ctx, st)
	if err != nil {
		return "", err
	}
	if ev.AttributedVia == ViaAmbiguous {
		// a credential seen changing hands before it (only that makes
		// candidates of a borrower) is in the stored events, not the
		// session records: learn it, as the ingest did
		src := evidence.StoreSource{Store: st}
		if err := id.LearnStored(ctx, src, ev.Time.Add(time.Nanosecond)); err != nil {
			return "", err
		}
	}
	return Describe(ev, id.Attribute(&ev)), nil
}

// Describe writes an attribution of ev as Path does.
func Describe(ev evidence.Event, a Attribution) string {
	switch {
	case a.Via == ViaAmbiguous:
		s := keyOf(ev) + " → ambiguous: " + strings.Join(a.Candidates, ", ")
		if a.AfterEnd {
			s += " (sessions ended)"
		}
		return s
	case a.Binding == nil:
		return "not attributed: no session binds " + keyOf(ev) + " at that time"
	}
	b := a.Binding
	where := "session " + b.Session
	if b.Sandbox != "" {
		where = "sandbox " + b.Sandbox
	}
	end := "open"
	if !b.End.IsZero() {
		end = clock(b.End)
	}
	s := fmt.Sprintf("%s → %s (%s–%s) → %s via %s", b.Value, where, clock(b.Start), end, b.Agent, a.Via)
	if a.AfterEnd {
		s += ", after its session ended"
	}
	return s
}

// keyOf names the keys an event carries, most trusted first.
func keyOf(ev evidence.Event) string {
	var keys []string
	for _, k := range []string{ev.Container, ev.Pod, ev.SrcIP} {
		if k != "" {
			keys = append(keys, k)
		}
	}
	keys = append(keys, ev.Credential...)
	if ev.User != "" {
		keys = append(keys, ev.User)
	}
	return strings.Join(keys, ", ")
}

func clock(t time.Time) string { return t.UTC().Format(time.TimeOnly) }
