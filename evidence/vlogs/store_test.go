package vlogs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/attribution/attributiontest"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/evidence/storetest"
	"github.com/cordon-ir/cordon/evidence/vlogs"
	"github.com/cordon-ir/cordon/evidence/vlogs/vlogstest"
)

func contractEvents(t *testing.T) []evidence.Event {
	evs := attributiontest.Files(t, filepath.Join("..", "..", "sample-incidents", "egress-probe-exfil"))
	attribution.AttributeAll(evs)
	return storetest.WithTies(evs)
}

func open(t *testing.T, addr, caseID, dir string) *vlogs.Store {
	t.Helper()
	st, err := vlogs.Open(context.Background(), vlogs.Options{Addr: addr, Case: caseID, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The contract every store keeps, on a real VictoriaLogs, each run in a
// case of its own on one server.
func TestVictoriaLogsStoreKeepsTheContract(t *testing.T) {
	addr := vlogstest.Start(t)
	n := 0
	storetest.Run(t, func(t *testing.T) evidence.Store {
		n++
		return open(t, addr, fmt.Sprintf("contract-%d", n), t.TempDir())
	}, contractEvents(t))
}

// Two cases on one server: neither sees the other's events, counts or
// ids, even where they share ids.
func TestCasesDoNotSeeEachOther(t *testing.T) {
	ctx := context.Background()
	addr := vlogstest.Start(t)
	evs := contractEvents(t)
	a := open(t, addr, "case-a", t.TempDir())
	b := open(t, addr, "case-b", t.TempDir())
	if _, err := a.Index(ctx, evs, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Index(ctx, evs[:3], nil); err != nil {
		t.Fatal(err)
	}
	h, err := b.Search(ctx, evidence.Request{Limit: 1000})
	if err != nil || h.Total != 3 {
		t.Fatalf("case b finds %d events (%v), want its 3", h.Total, err)
	}
	if _, err := b.Get(ctx, evs[5].ID); !errors.Is(err, evidence.ErrNotFound) {
		t.Errorf("case b gets case a's event: %v", err)
	}
	reopened := open(t, addr, "case-b", t.TempDir())
	if c := reopened.Counts(); c.Total != 3 {
		t.Errorf("case b reopened counts %d events, want 3", c.Total)
	}
	if n, err := b.Replace(ctx, []evidence.Event{evs[5]}); err != nil || n != 0 {
		t.Errorf("case b replaced %d of case a's events (%v)", n, err)
	}
}

// A batch sent again after a crash between the write and the checkpoint
// is not stored twice, and a store reopened on the case reads the counts
// and checkpoints it left.
func TestResumedBatchIsNotStoredTwice(t *testing.T) {
	ctx := context.Background()
	addr := vlogstest.Start(t)
	dir := t.TempDir()
	evs := contractEvents(t)
	st := open(t, addr, "resume", dir)
	if _, err := st.Index(ctx, evs[:20], map[string][]byte{"f": []byte("20")}); err != nil {
		t.Fatal(err)
	}
	// the crash: the next batch landed, its checkpoint did not
	if _, err := st.Index(ctx, evs[20:40], nil); err != nil {
		t.Fatal(err)
	}
	again := open(t, addr, "resume", dir)
	if v, _ := again.State("f"); string(v) != "20" {
		t.Fatalf("checkpoint after reopening: %q, want 20", v)
	}
	fresh, err := again.Index(ctx, evs[20:60], map[string][]byte{"f": []byte("60")})
	if err != nil || fresh != 20 {
		t.Fatalf("resumed batch: %d new (%v), want the 20 not stored yet", fresh, err)
	}
	h, err := again.Search(ctx, evidence.Request{Limit: 1})
	if err != nil || h.Total != 60 || again.Counts().Total != 60 {
		t.Errorf("after the resume: %d stored, %d counted (%v), want 60", h.Total, again.Counts().Total, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "victorialogs-state.json")); err != nil {
		t.Errorf("checkpoints are not beside the case: %v", err)
	}
}

// Log data is hostile: values that would close a LogsQL string, open a
// pipe or a stream filter are searched for as themselves.
func TestHostileValuesAreQuoted(t *testing.T) {
	ctx := context.Background()
	addr := vlogstest.Start(t)
	st := open(t, addr, "hostile", t.TempDir())
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	nasty := []string{`x" OR * | delete cordon_ev`, `a\"b`, "} {cordon_case=\"other\"", "new\nline", "`tick`", `'single'`, "\x00nul", "ünï"}
	var evs []evidence.Event
	for i, v := range nasty {
		evs = append(evs, evidence.Event{ID: fmt.Sprintf("h%d", i), Time: t0.Add(time.Duration(i) * time.Second),
			Source: evidence.SourceSensor, Kind: evidence.KindProcExec, User: v, Container: v})
	}
	if _, err := st.Index(ctx, evs, nil); err != nil {
		t.Fatal(err)
	}
	for i, v := range nasty {
		h, err := st.Search(ctx, evidence.Request{Query: evidence.Term("user", v)})
		if err != nil || h.Total != 1 || h.Events[0].ID != evs[i].ID {
			t.Errorf("user:%q finds %v (%v), want %s alone", v, h, err, evs[i].ID)
		}
	}
	if _, err := st.Search(ctx, evidence.Request{Query: evidence.Regexp("user", `x" OR .*`)}); err != nil {
		t.Errorf("a regexp with a quote: %v", err)
	}
}

func TestOpenRefusesBadInput(t *testing.T) {
	for _, o := range []vlogs.Options{
		{Addr: "http://127.0.0.1:9428", Case: "c", Dir: t.TempDir()},
		{Addr: "victorialogs://127.0.0.1", Case: "c", Dir: t.TempDir()},
		{Addr: "victorialogs://127.0.0.1:9428/x", Case: "c", Dir: t.TempDir()},
		{Addr: "victorialogs://127.0.0.1:9428", Case: `c"}`, Dir: t.TempDir()},
		{Addr: "victorialogs://127.0.0.1:9428", Case: "", Dir: t.TempDir()},
	} {
		if _, err := vlogs.Open(context.Background(), o); err == nil {
			t.Errorf("Open(%+v) accepted", o)
		}
	}
}

// An id set longer than the server's 16 KiB query limit (a finding's
// evidence, say) is split into queries that fit: a search, its pages and
// a facet over it read as one set.
func TestLongIDListsAreSplit(t *testing.T) {
	ctx := context.Background()
	addr := vlogstest.Start(t)
	st := open(t, addr, "long-ids", t.TempDir())
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var evs []evidence.Event
	var ids []string
	for i := 0; i < 1500; i++ {
		id := fmt.Sprintf("an-event-id-long-enough-%06d", i)
		evs = append(evs, evidence.Event{ID: id, Time: t0.Add(time.Duration(i/3) * time.Second), Source: evidence.SourceSensor,
			Kind: evidence.KindProcExec, Agent: fmt.Sprintf("agent-%d", i%4)})
		ids = append(ids, id)
	}
	extra := evidence.Event{ID: "not-asked", Time: t0, Source: evidence.SourceSensor, Kind: evidence.KindProcExec, Agent: "agent-0"}
	if _, err := st.Index(ctx, append(evs, extra), nil); err != nil {
		t.Fatal(err)
	}
	asked := append(append([]string{}, ids[700:]...), ids[:700]...) // out of order, and one twice
	q := evidence.IDs(append(asked, ids[3])...)
	if n := len(q.String()); n < 32<<10 {
		t.Fatalf("the id set is %d bytes: too short to test the split", n)
	}
	h, err := st.Search(ctx, evidence.Request{Query: q, Offset: 1000, Limit: 20})
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	if h.Total != 1500 || len(h.Events) != 20 || h.Events[0].ID != ids[1000] || h.Events[19].ID != ids[1019] {
		t.Fatalf("search: total %d, %d events from %v, want 1500 and 20 from %s", h.Total, len(h.Events), first(h.Events), ids[1000])
	}
	h, err = st.Search(ctx, evidence.Request{Query: q, Sort: evidence.SortTimeDesc, Limit: 5})
	if err != nil || len(h.Events) != 5 || h.Events[0].ID != ids[1499] {
		t.Fatalf("newest first: %v (%v), want %s first", first(h.Events), err, ids[1499])
	}
	in := evidence.And(q, evidence.TimeRange(t0.Add(100*time.Second), t0.Add(200*time.Second)))
	p, err := st.Page(ctx, evidence.PageRequest{Query: in, Limit: 250})
	if err != nil || len(p.Events) != 250 || p.Events[0].ID != ids[300] || !p.More {
		t.Fatalf("page: %d events from %v, more %v (%v), want 250 from %s and more", len(p.Events), first(p.Events), p.More, err, ids[300])
	}
	p, err = st.Page(ctx, evidence.PageRequest{Query: in, After: p.Last, Limit: 250})
	if err != nil || len(p.Events) != 50 || p.Events[0].ID != ids[550] || p.More {
		t.Fatalf("next page: %d events from %v, more %v (%v), want the last 50 from %s", len(p.Events), first(p.Events), p.More, err, ids[550])
	}
	c, err := st.Facet(ctx, q, time.Time{}, time.Time{}, "agent", 10)
	if err != nil || len(c) != 4 || c[0].Count != 375 {
		t.Fatalf("facet: %v (%v), want 4 agents of 375", c, err)
	}
}

func first(evs []evidence.Event) string {
	if len(evs) == 0 {
		return "nothing"
	}
	return evs[0].ID
}

// An ingest's batches are sent without waiting for each: a batch's
// checkpoint and callbacks wait until it is counted on the server, in the
// order the batches came, and an id sent in a batch still in flight is
// not sent again.
func TestCheckpointsWaitForTheirBatch(t *testing.T) {
	ctx := context.Background()
	addr := vlogstest.Start(t)
	st := open(t, addr, "pipelined", t.TempDir())
	evs := contractEvents(t)
	var landed []string
	send := func(name string, batch []evidence.Event) int {
		p, err := st.Prepare(batch)
		if err != nil {
			t.Fatal(err)
		}
		n, err := st.IndexPrepared(ctx, p, map[string][]byte{"f": []byte(name)}, func() { landed = append(landed, name) }, nil)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	send("1", evs[:10]) // a store's first batch is settled at once
	if v, _ := st.State("f"); string(v) != "1" || len(landed) != 1 {
		t.Fatalf("after the first batch: checkpoint %q, landed %v", v, landed)
	}
	began := time.Now()
	send("2", evs[10:20])
	if n := send("3", evs[15:30]); n != 10 {
		t.Errorf("a batch repeating 5 ids of one in flight: %d new, want 10", n)
	}
	// batches in flight are settled after 2 s anyway: a stalled machine
	// proves nothing here
	if v, _ := st.State("f"); time.Since(began) < 1500*time.Millisecond && (string(v) != "1" || len(landed) != 1) {
		t.Errorf("before the batches in flight are counted: checkpoint %q, landed %v; want 1 and [1]", v, landed)
	}
	if err := st.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if v, _ := st.State("f"); string(v) != "3" || fmt.Sprint(landed) != "[1 2 3]" {
		t.Errorf("after Sync: checkpoint %q, landed %v; want 3 and [1 2 3]", v, landed)
	}
	h, err := st.Search(ctx, evidence.Request{Limit: 1})
	if err != nil || h.Total != 30 || st.Counts().Total != 30 {
		t.Errorf("%d stored, %d counted (%v), want 30", h.Total, st.Counts().Total, err)
	}
}

// A search of every record, or of one value of a counted field, first
// tries the span of time the kept counts say holds its page; whether the
// guess holds (values spread evenly) or not (a value only at the end),
// the answer is the one the long way gives.
func TestSearchFromTheCountsGivesTheSameAnswer(t *testing.T) {
	ctx := context.Background()
	addr := vlogstest.Start(t)
	st := open(t, addr, "guess", t.TempDir())
	t0 := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	var evs []evidence.Event
	for i := 0; i < 3000; i++ {
		agent := fmt.Sprintf("agent-%d", i%3)
		if i >= 2900 {
			agent = "late" // all at the end: the even guess is far too short
		}
		evs = append(evs, evidence.Event{ID: fmt.Sprintf("e%05d", i), Time: t0.Add(time.Duration(i) * 20 * time.Second),
			Source: evidence.SourceSensor, Kind: evidence.KindProcExec, Agent: agent})
	}
	if _, err := st.Index(ctx, evs, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		agent  string
		offset int
		desc   bool
	}{{"", 0, false}, {"", 250, false}, {"", 0, true}, {"agent-1", 0, false}, {"agent-1", 120, false}, {"agent-2", 0, true}, {"late", 0, false}, {"late", 60, false}} {
		q := evidence.All()
		var want []string
		for _, ev := range evs {
			if c.agent == "" || ev.Agent == c.agent {
				want = append(want, ev.ID)
			}
		}
		total := len(want)
		if c.agent != "" {
			q = evidence.Term("agent", c.agent)
		}
		sort := evidence.SortTime
		if c.desc {
			sort = evidence.SortTimeDesc
			for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
				want[i], want[j] = want[j], want[i]
			}
		}
		want = want[min(c.offset, len(want)):min(c.offset+50, len(want))]
		h, err := st.Search(ctx, evidence.Request{Query: q, Sort: sort, Offset: c.offset, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ev := range h.Events {
			got = append(got, ev.ID)
		}
		if int(h.Total) != total || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("agent %q offset %d desc %v: total %d, %v; want %d, %v", c.agent, c.offset, c.desc, h.Total, got, total, want)
		}
	}
}
