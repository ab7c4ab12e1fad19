package attribution

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// RelatedWindow is how far around an event "same agent, same moment" looks.
const RelatedWindow = 30 * time.Second

// relatedLimit bounds each group: the console shows a handful, and the
// group's query (Related.Query) opens the rest in the timeline.
const relatedLimit = 25

// Related is one group of events linked to an event by a shared key.
type Related struct {
	// Why names the link: "same call_id c-12".
	Why string
	// Query finds the whole group in the timeline (a group of a time
	// window carries the window as time clauses).
	Query  evidence.Query
	Events []evidence.Event
	// Total is the size of the group (Events may be a part of it).
	Total uint64
}

// RelatedEvents finds the events linked to ev, ranked by link before
// time: the same tool call (call_id: call, decision, result), what a tool
// call did on the host and the network or the tool call an effect came
// from (ToolEffects), the same process (exec_id, and its children), the
// nearest events of the same session, and last the same agent within
// ±30 s (for an event no agent is attributed to yet: the same source IP or
// container within ±30 s), that window itself ranked by link before
// nearness (SortByLink). The event itself is left out; empty groups are
// omitted.
func RelatedEvents(ctx context.Context, st evidence.Reader, ev evidence.Event) ([]Related, error) {
	var out []Related
	add := func(why string, q evidence.Query, since, until time.Time) error {
		hits, err := st.Search(ctx, evidence.Request{Query: q, Since: since, Until: until, Sort: evidence.SortTime, Limit: relatedLimit + 1})
		if err != nil {
			return fmt.Errorf("related (%s): %w", why, err)
		}
		r := Related{Why: why, Query: q, Total: hits.Total}
		for _, h := range hits.Events {
			if h.ID != ev.ID && len(r.Events) < relatedLimit {
				r.Events = append(r.Events, h)
			}
		}
		// every query here is built from ev's own fields (its call, its
		// process, its agent in a window around it), so ev is among the
		// hits even when it sorts past the first page
		if hits.Total > 0 {
			r.Total--
		}
		if len(r.Events) > 0 {
			out = append(out, r)
		}
		return nil
	}
	if ev.CallID != "" {
		if err := add("same call_id "+ev.CallID, evidence.Term("call_id", ev.CallID), time.Time{}, time.Time{}); err != nil {
			return out, err
		}
	}
	if r, err := crossLayer(ctx, st, ev); err != nil {
		return out, err
	} else if len(r.Events) > 0 {
		out = append(out, r)
	}
	if ev.ExecID != "" {
		q := evidence.Or(evidence.Term("exec_id", ev.ExecID), evidence.Term("parent_exec_id", ev.ExecID))
		if err := add("same exec_id "+ev.ExecID+" (and its children)", q, time.Time{}, time.Time{}); err != nil {
			return out, err
		}
	}
	// A shared key before a shared moment: the session is a link, the
	// ±30 s windows only nearness, and they come last.
	if ev.Session != "" {
		r, err := nearest(ctx, st, ev, "same session "+ev.Session, evidence.Term("session", ev.Session))
		if err != nil {
			return out, err
		}
		if len(r.Events) > 0 {
			out = append(out, r)
		}
	}
	keys := []struct{ field, value string }{{"agent", ev.Agent}}
	if ev.Agent == "" {
		// not attributed yet: what else came from the same address or
		// container at that moment is where attribution starts
		keys = []struct{ field, value string }{{"src_ip", ev.SrcIP}, {"container", ev.Container}}
	}
	for _, k := range keys {
		if k.value == "" {
			continue
		}
		q := evidence.And(evidence.Term(k.field, k.value), evidence.Within(ev.Time.Add(-RelatedWindow), ev.Time.Add(RelatedWindow)))
		r, err := window(ctx, st, ev, "same "+k.field+" "+k.value+" ±30s", q)
		if err != nil {
			return out, err
		}
		if len(r.Events) > 0 {
			out = append(out, r)
		}
	}
	return out, nil
}

// windowReach is how many events on each side of ev a ±30 s window reads
// to rank: the nearest, when a busy agent has more in the window.
const windowReach = 250

// window is a group of the events near ev in time (q bounds the window),
// ranked by their link to ev before their distance from it: the same tool
// call, then the same process (or its parent or child), then the same
// session, then the rest, each by nearness. The first relatedLimit are
// kept, in that order: the list shown around an event starts with what is
// tied to it, not with whatever happened first in the window.
func window(ctx context.Context, st evidence.Reader, ev evidence.Event, why string, q evidence.Query) (Related, error) {
	at := evidence.Cursor{Time: ev.Time, ID: ev.ID}
	before, err := st.Page(ctx, evidence.PageRequest{Query: q, After: at, Backward: true, Limit: windowReach})
	if err != nil {
		return Related{}, fmt.Errorf("related (%s): %w", why, err)
	}
	after, err := st.Page(ctx, evidence.PageRequest{Query: q, After: at, Limit: windowReach})
	if err != nil {
		return Related{}, fmt.Errorf("related (%s): %w", why, err)
	}
	evs := append(append([]evidence.Event(nil), before.Events...), after.Events...)
	evs = slices.DeleteFunc(evs, func(e evidence.Event) bool { return e.ID == ev.ID })
	r := Related{Why: why, Query: q, Total: uint64(len(evs))}
	if before.More || after.More {
		hits, err := st.Search(ctx, evidence.Request{Query: q, Limit: 1})
		if err != nil {
			return Related{}, fmt.Errorf("related (%s): %w", why, err)
		}
		if hits.Total > 0 {
			r.Total = hits.Total - 1 // ev itself is in its own window
		}
	}
	SortByLink(ev, evs)
	r.Events = evs[:min(len(evs), relatedLimit)]
	return r, nil
}

// Link is how an event is tied to another: LinkCall (the same tool
// call), LinkProcess (the same process, its parent or its child),
// LinkSession (the same session) or LinkNone.
type Link int

// The links, strongest first.
const (
	LinkCall Link = iota
	LinkProcess
	LinkSession
	LinkNone
)

// LinkOf is the strongest link between ev and e.
func LinkOf(ev, e evidence.Event) Link {
	same := func(a, b string) bool { return a != "" && a == b }
	switch {
	case same(ev.CallID, e.CallID):
		return LinkCall
	case same(ev.ExecID, e.ExecID), same(ev.ExecID, e.ParentExecID), same(ev.ParentExecID, e.ExecID):
		return LinkProcess
	case same(ev.Session, e.Session):
		return LinkSession
	}
	return LinkNone
}

// SortByLink orders evs by their link to ev, strongest first, then by
// their distance in time from it, then by time and id.
func SortByLink(ev evidence.Event, evs []evidence.Event) {
	dist := func(e evidence.Event) time.Duration {
		d := e.Time.Sub(ev.Time)
		if d < 0 {
			return -d
		}
		return d
	}
	slices.SortStableFunc(evs, func(a, b evidence.Event) int {
		if c := cmp.Compare(LinkOf(ev, a), LinkOf(ev, b)); c != 0 {
			return c
		}
		if c := cmp.Compare(dist(a), dist(b)); c != 0 {
			return c
		}
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// nearest returns the events of a (possibly huge) group closest in time to
// ev: a few before and a few after, by timeline pages around it.
func nearest(ctx context.Context, st evidence.Reader, ev evidence.Event, why string, q evidence.Query) (Related, error) {
	at := evidence.Cursor{Time: ev.Time, ID: ev.ID}
	const half = 6
	before, err := st.Page(ctx, evidence.PageRequest{Query: q, After: at, Backward: true, Limit: half})
	if err != nil {
		return Related{}, fmt.Errorf("related (%s): %w", why, err)
	}
	after, err := st.Page(ctx, evidence.PageRequest{Query: q, After: at, Limit: half})
	if err != nil {
		return Related{}, fmt.Errorf("related (%s): %w", why, err)
	}
	r := Related{Why: why + " (nearest)", Query: q}
	r.Events = append(append(r.Events, before.Events...), after.Events...)
	r.Total = uint64(len(r.Events))
	if before.More || after.More {
		hits, err := st.Search(ctx, evidence.Request{Query: q, Limit: 1})
		if err == nil && hits.Total > 0 {
			r.Total = hits.Total - 1
		}
	}
	return r, nil
}

func containsID(evs []evidence.Event, id string) bool {
	for _, e := range evs {
		if e.ID == id {
			return true
		}
	}
	return false
}

// crossLayer links a ledger tool call to its effects in the sensor and
// proxy logs, or an effect back to its tool call.
func crossLayer(ctx context.Context, st evidence.Reader, ev evidence.Event) (Related, error) {
	if ev.Source == evidence.SourceLedger {
		if ev.Kind != evidence.KindToolCall {
			return Related{}, nil
		}
		effects, err := ToolEffects(ctx, st, ev)
		if err != nil || len(effects) == 0 {
			return Related{}, err
		}
		ids := make([]string, len(effects))
		for i, e := range effects {
			ids[i] = e.ID
		}
		r := Related{Why: "what the tool call did (sensor, proxy)", Query: evidence.IDs(ids...), Total: uint64(len(effects))}
		r.Events = effects[:min(len(effects), relatedLimit)]
		return r, nil
	}
	call, ok, err := ToolCause(ctx, st, ev)
	if err != nil || !ok {
		return Related{}, err
	}
	why := "the tool call it came from"
	if call.CallID != "" {
		why += " (" + call.CallID + ")"
	}
	return Related{Why: why, Query: evidence.Term("id", call.ID), Events: []evidence.Event{call}, Total: 1}, nil
}
