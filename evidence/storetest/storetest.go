package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Queries are the typed queries the contract is checked with: one of each
// form of the syntax.
var Queries = []string{
	"*", "kind:tool_call", "agent:agent-7 decision:deny", "decision:deny OR kind:session_start",
	"source:proxy -decision:deny", "NOT source:ledger", "kind:(net_request OR dns_query) dst_host:*.com",
	"agent:agent*", "user:*", "cmdline:/cur.*/", "agent:/AGENT-7/i", "curl", "cmdline:curl OR nohup",
	"bytes_out:>0", "bytes_out:>=100 AND bytes_out:<100000", "dst_host:HTTPBIN.ORG", "nosuchvalue",
	"kind:tool_call AND (decision:deny OR tool:bash) AND NOT agent:agent-3",
}

// WithTies returns evs (a sample incident, attributed) with what the
// contract needs besides: events sharing a timestamp, so that pages must
// break ties by id, and a late one whose host is upper case.
func WithTies(evs []evidence.Event) []evidence.Event {
	t0 := evs[len(evs)/2].Time
	for i := 0; i < 5; i++ {
		evs = append(evs, evidence.Event{ID: "tie-" + string(rune('e'-i)), Time: t0, Source: evidence.SourceLedger,
			Kind: evidence.KindToolCall, Agent: "agent-7", Tool: "bash", Cmdline: "curl https://httpbin.org"})
	}
	return append(evs, evidence.Event{ID: "late", Time: t0.Add(time.Hour), Source: evidence.SourceProxy, Kind: evidence.KindNetRequest, DstHost: "HTTPBIN.ORG"})
}

// Run checks the Store contract on a store open returns (empty, fresh for
// each call) holding events. The events should span several minutes, hold
// several agents, kinds and sources, and share some timestamps.
func Run(t *testing.T, open func(t *testing.T) evidence.Store, events []evidence.Event) {
	t.Helper()
	ctx := context.Background()
	st := open(t)
	want := oracle(events)
	fresh, err := st.Index(ctx, append(slices.Clone(events), events[:len(events)/2]...), map[string][]byte{"cp": []byte("1")})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("index skips ids it holds", func(t *testing.T) {
		if fresh != len(want) {
			t.Errorf("Index took %d new of %d distinct", fresh, len(want))
		}
		again, err := st.Index(ctx, events[:10], map[string][]byte{"cp": []byte("2")})
		if err != nil || again != 0 {
			t.Errorf("re-indexing: %d new (%v)", again, err)
		}
		if v, err := st.State("cp"); err != nil || string(v) != "2" {
			t.Errorf("State = %q %v, want the last recorded", v, err)
		}
	})
	t.Run("counts kept at ingest", func(t *testing.T) {
		checkCounts(t, st.Counts(), want)
		checkAgentCounts(t, st.Counts(), want, true)
	})
	for _, text := range Queries {
		q := evidence.MustParse(text)
		m, err := evidence.Compile(q)
		if err != nil {
			t.Fatal(err)
		}
		var match []evidence.Event
		for i := range want {
			if m.Match(&want[i]) {
				match = append(match, want[i])
			}
		}
		t.Run("query "+text, func(t *testing.T) {
			checkSearch(t, st, q, match, want)
			checkPages(t, st, q, match)
			checkFacet(t, st, q, match)
		})
	}
	t.Run("replace re-attributes", func(t *testing.T) { checkReplace(t, st, want) })
	t.Run("get", func(t *testing.T) {
		ev, err := st.Get(ctx, want[3].ID)
		if err != nil || ev.ID != want[3].ID || !ev.Time.Equal(want[3].Time) {
			t.Errorf("Get(%s) = %s %v", want[3].ID, ev.ID, err)
		}
		if _, err := st.Get(ctx, "no-such-id"); !errors.Is(err, evidence.ErrNotFound) {
			t.Errorf("Get of a missing id: %v, want ErrNotFound", err)
		}
		if _, err := st.Search(ctx, evidence.Request{Sort: "sideways"}); err == nil {
			t.Error("an unknown sort is accepted")
		}
		// a query built in code with a field the store lacks finds
		// nothing silently nowhere: it is an error
		bad := evidence.And(evidence.Term("kind", "tool_call"), evidence.Term("nosuchfield", "x"))
		if _, err := st.Search(ctx, evidence.Request{Query: bad}); !errors.Is(err, evidence.ErrQuery) {
			t.Errorf("search on an unknown field: %v, want ErrQuery", err)
		}
		if _, err := st.Page(ctx, evidence.PageRequest{Query: bad}); !errors.Is(err, evidence.ErrQuery) {
			t.Errorf("page on an unknown field: %v, want ErrQuery", err)
		}
	})
}

// oracle is the events as a store holds them: each id once (the first),
// in time and then id order.
func oracle(events []evidence.Event) []evidence.Event {
	seen := map[string]bool{}
	var out []evidence.Event
	for _, ev := range events {
		if !seen[ev.ID] {
			seen[ev.ID] = true
			ev.Time = ev.Time.UTC()
			out = append(out, ev)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return less(&out[i], &out[j]) })
	return out
}

func less(a, b *evidence.Event) bool {
	if !a.Time.Equal(b.Time) {
		return a.Time.Before(b.Time)
	}
	return a.ID < b.ID
}

func ids(evs []evidence.Event) string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return strings.Join(out, ",")
}

func checkCounts(t *testing.T, c evidence.Counts, want []evidence.Event) {
	t.Helper()
	if c.Total != int64(len(want)) || !c.First.Equal(want[0].Time) || !c.Last.Equal(want[len(want)-1].Time) {
		t.Errorf("counts: %d events %s–%s, want %d %s–%s", c.Total, c.First, c.Last, len(want), want[0].Time, want[len(want)-1].Time)
	}
	agents := map[string]int64{}
	minutes := int64(0)
	for _, ev := range want {
		agents[ev.Agent]++
	}
	for _, n := range c.Minutes {
		minutes += n
	}
	if fmt.Sprint(agents) != fmt.Sprint(c.Fields["agent"]) || minutes != c.Total {
		t.Errorf("counts per agent %v (minutes add to %d), want %v", c.Fields["agent"], minutes, agents)
	}
}

func checkSearch(t *testing.T, st evidence.Store, q evidence.Query, match, all []evidence.Event) {
	t.Helper()
	ctx := context.Background()
	h, err := st.Search(ctx, evidence.Request{Query: q, Limit: len(all) + 1})
	if err != nil {
		t.Fatal(err)
	}
	if h.Total != uint64(len(match)) || ids(h.Events) != ids(match) {
		t.Errorf("search: %d hits %.200s, want %d %.200s", h.Total, ids(h.Events), len(match), ids(match))
	}
	// newest first, a page in
	desc, err := st.Search(ctx, evidence.Request{Query: q, Sort: evidence.SortTimeDesc, Limit: 5, Offset: 2})
	if err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(match)
	slices.Reverse(rev)
	if w := rev[min(2, len(rev)):min(7, len(rev))]; ids(desc.Events) != ids(w) {
		t.Errorf("newest first, offset 2: %s, want %s", ids(desc.Events), ids(w))
	}
	// a time window: [since, until)
	since, until := all[len(all)/3].Time, all[2*len(all)/3].Time
	var in []evidence.Event
	for _, ev := range match {
		if !ev.Time.Before(since) && ev.Time.Before(until) {
			in = append(in, ev)
		}
	}
	w, err := st.Search(ctx, evidence.Request{Query: q, Since: since, Until: until, Limit: len(all) + 1})
	if err != nil {
		t.Fatal(err)
	}
	if w.Total != uint64(len(in)) || ids(w.Events) != ids(in) {
		t.Errorf("window %s–%s: %d hits, want %d", since, until, w.Total, len(in))
	}
}

// checkPages walks the timeline both ways by cursor, in small pages, and
// from a time: every event once, in order, whatever the ties in time.
func checkPages(t *testing.T, st evidence.Store, q evidence.Query, match []evidence.Event) {
	t.Helper()
	ctx := context.Background()
	var fwd []evidence.Event
	req := evidence.PageRequest{Query: q, Limit: 7}
	for n := 0; n <= len(match)+1; n++ {
		p, err := st.Page(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		fwd = append(fwd, p.Events...)
		if !p.More || len(p.Events) == 0 {
			break
		}
		req.After = p.Last
	}
	if ids(fwd) != ids(match) {
		t.Errorf("paging forward: %d events, want %d", len(fwd), len(match))
	}
	var back []evidence.Event
	req = evidence.PageRequest{Query: q, Limit: 7, Backward: true, From: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}
	for n := 0; n <= len(match)+1; n++ {
		p, err := st.Page(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		back = append(slices.Clone(p.Events), back...)
		if !p.More || len(p.Events) == 0 {
			break
		}
		req.After, req.From = p.First, time.Time{}
	}
	if ids(back) != ids(match) {
		t.Errorf("paging backward: %d events, want %d", len(back), len(match))
	}
	if len(match) == 0 {
		return
	}
	at := match[len(match)/2].Time
	p, err := st.Page(ctx, evidence.PageRequest{Query: q, From: at, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	var from []evidence.Event
	for _, ev := range match {
		if !ev.Time.Before(at) && len(from) < 3 {
			from = append(from, ev)
		}
	}
	if ids(p.Events) != ids(from) {
		t.Errorf("page from %s: %s, want %s", at, ids(p.Events), ids(from))
	}
}

func checkFacet(t *testing.T, st evidence.Store, q evidence.Query, match []evidence.Event) {
	t.Helper()
	if q.IsAll() {
		return // the whole incident is answered from the counts, by value as ingested
	}
	for _, field := range []string{"agent", "kind", "dst_host"} {
		got, err := st.Facet(context.Background(), q, time.Time{}, time.Time{}, field, 5)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := evidence.LookupField(field)
		c := evidence.Counts{Fields: map[string]map[string]int64{field: {}}}
		for i := range match {
			for _, v := range f.Values(&match[i]) {
				c.Fields[field][v]++
			}
		}
		want := c.Top(field, 5)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("facet %s: %v, want %v", field, got, want)
		}
	}
}

func checkReplace(t *testing.T, st evidence.Store, all []evidence.Event) {
	t.Helper()
	ctx := context.Background()
	picked := []evidence.Event{all[1], all[len(all)/2], all[len(all)-1]}
	before := st.Counts()
	for i := range picked {
		picked[i].Agent, picked[i].AttributedVia = "agent-replaced", "src_ip"
	}
	// one left between two agents by a binding conflict, a candidate
	// named twice (counted once, as a facet counts an event)
	picked[1].Tags = []string{evidence.TagBindingConflict, "candidate:agent-x", "candidate:agent-y", "candidate:agent-x"}
	n, err := st.Replace(ctx, append(slices.Clone(picked), evidence.Event{ID: "no-such-id", Time: all[0].Time}))
	if err != nil || n != 3 {
		t.Fatalf("Replace = %d %v, want 3", n, err)
	}
	h, err := st.Search(ctx, evidence.Request{Query: evidence.Term("agent", "agent-replaced")})
	if err != nil || ids(h.Events) != ids(picked) {
		t.Errorf("after Replace the new agent finds %v (%v), want %s", ids(h.Events), err, ids(picked))
	}
	after := st.Counts()
	if after.Total != before.Total || after.Fields["agent"]["agent-replaced"] != 3 {
		t.Errorf("counts after Replace: %d events, %d replaced", after.Total, after.Fields["agent"]["agent-replaced"])
	}
	if ev, err := st.Get(ctx, picked[0].ID); err != nil || ev.Agent != "agent-replaced" {
		t.Errorf("Get after Replace: agent %q %v", ev.Agent, err)
	}
	now := slices.Clone(all)
	for i := range now {
		for _, p := range picked {
			if now[i].ID == p.ID {
				now[i].Agent, now[i].AttributedVia, now[i].Tags = p.Agent, p.AttributedVia, p.Tags
			}
		}
	}
	checkAgentCounts(t, after, now, false)
}

// checkAgentCounts checks what the counts keep of each agent against the
// events: the counts of events, denials and contested events exactly, a
// first or last time where the counts give one (every one, when
// allKnown: nothing was replaced).
func checkAgentCounts(t *testing.T, c evidence.Counts, evs []evidence.Event, allKnown bool) {
	t.Helper()
	if !c.AgentsKept {
		t.Fatal("the counts of a store filled from empty keep no agents")
	}
	truth := map[string]*evidence.AgentCounts{}
	at := func(name string) *evidence.AgentCounts {
		if truth[name] == nil {
			truth[name] = &evidence.AgentCounts{}
		}
		return truth[name]
	}
	for _, ev := range evs {
		a := at(ev.Agent)
		if a.N == 0 || ev.Time.Before(a.First) {
			a.First, a.AtFirst = ev.Time, 0
		}
		if a.N == 0 || ev.Time.After(a.Last) {
			a.Last, a.AtLast = ev.Time, 0
		}
		a.N++
		if ev.Decision == evidence.DecisionDeny {
			a.Denied++
		}
		if slices.Contains(ev.Tags, evidence.TagBindingConflict) {
			seen := map[string]bool{}
			for _, tag := range ev.Tags {
				if name, ok := strings.CutPrefix(tag, "candidate:"); ok && !seen[name] {
					seen[name] = true
					at(name).Contested++
				}
			}
		}
	}
	for _, ev := range evs {
		a := truth[ev.Agent]
		if ev.Time.Equal(a.First) {
			a.AtFirst++
		}
		if ev.Time.Equal(a.Last) {
			a.AtLast++
		}
	}
	for name, want := range truth {
		got := c.Agents[name]
		if got == nil {
			t.Errorf("agent %q: not in the counts", name)
			continue
		}
		if got.N != want.N || got.Denied != want.Denied || got.Contested != want.Contested {
			t.Errorf("agent %q: %d events, %d denied, %d contested; want %d, %d, %d", name, got.N, got.Denied, got.Contested, want.N, want.Denied, want.Contested)
		}
		sp, known := got.Span()
		if known && (!sp.First.Equal(want.First) || !sp.Last.Equal(want.Last) || got.AtFirst > want.AtFirst || got.AtLast > want.AtLast) {
			t.Errorf("agent %q: span %s–%s (%d, %d at the bounds), want %s–%s (%d, %d)", name, sp.First, sp.Last, got.AtFirst, got.AtLast, want.First, want.Last, want.AtFirst, want.AtLast)
		}
		if !known && allKnown && want.N > 0 {
			t.Errorf("agent %q: no span kept, nothing was replaced", name)
		}
	}
	for name := range c.Agents {
		if truth[name] == nil {
			t.Errorf("agent %q: in the counts, not in the events", name)
		}
	}
}
