package evidence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var t0 = time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)

// fixture: 1000 proxy events from three agents, one every 3 s, every 10th
// denied, plus a few sensor events with distinctive text.
func fixture() []Event {
	var evs []Event
	agents := []string{"agent-7", "agent-3", "agent-9"}
	for i := 0; i < 1000; i++ {
		ev := Event{
			Time: t0.Add(time.Duration(i) * 3 * time.Second), Source: SourceProxy, Format: "squid",
			Kind: KindNetRequest, Agent: agents[i%3], SrcIP: fmt.Sprintf("10.0.3.%d", i%3+1),
			DstHost: fmt.Sprintf("host%d.example.com", i%7), DstPort: 443, Status: "200",
			Decision: DecisionAllow, Method: "CONNECT", BytesIn: int64(i * 100),
			Message: fmt.Sprintf("CONNECT host%d.example.com:443", i%7),
			Raw:     fmt.Sprintf("raw line %d", i), Origin: fmt.Sprintf("access.log:%d", i+1),
		}
		if i%10 == 0 {
			ev.Decision, ev.Status = DecisionDeny, "403"
		}
		ev.ID = MakeID("squid", int64(i*100), 0, []byte(ev.Raw))
		evs = append(evs, ev)
	}
	evs = append(evs, Event{
		ID: "sensor-1", Time: t0.Add(90 * time.Second), Source: SourceSensor, Format: "falco", Kind: KindProcExec,
		Container: "3f2a9c1d7e88", Cmdline: "nohup /tmp/.x/beacon --interval 60 &", Pid: 4242,
		Message: "Terminal shell in container", Raw: `{"rule":"Terminal shell in container","note":"exfil staging"}`,
	})
	return evs
}

func openFixture(t *testing.T) Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "index.bleve"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	evs := fixture()
	for i := 0; i < len(evs); i += 300 {
		j := min(i+300, len(evs))
		if _, err := s.Index(context.Background(), evs[i:j], nil); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestSearchQueries(t *testing.T) {
	s := openFixture(t)
	ctx := context.Background()
	cases := []struct {
		q    string
		want uint64
	}{
		{"agent:agent-7", 334},
		{"agent:agent-7 +decision:deny", 34},
		{"+agent:agent-7 +decision:deny", 34},
		{"dst_host:*.example.com", 1000},
		{"dst_host:host3.example.com", 143},
		{"dst_port:443", 1000},
		{"status:403", 100},
		{"nohup", 1},                   // bare word: command line
		{"exfil", 1},                   // bare word: raw text only
		{"cmdline:beacon", 1},          // token in a command line
		{"kind:proc_exec pid:4242", 1}, // numeric keyword
		{"bytes_in:>99000", 9},
		{"agent:agent", 0},                        // keywords are exact
		{`agent:"agent-7"`, 334},                  // a quoted keyword is the whole value
		{`+agent:"agent-7" +decision:"deny"`, 34}, // and combines like a bare one
		{`dst_host:"host3.example.com"`, 143},     // hosts, ports too
		{`dst_port:"443"`, 1000},
		{"", 1001},
	}
	for _, c := range cases {
		hits, err := s.Search(ctx, Request{Query: MustParse(c.q), Limit: 5})
		if err != nil {
			t.Errorf("%q: %v", c.q, err)
			continue
		}
		if hits.Total != c.want {
			t.Errorf("%q: %d hits, want %d", c.q, hits.Total, c.want)
		}
	}
	if _, err := Parse(`agent:"unclosed`); !errors.Is(err, ErrQuery) {
		t.Errorf("bad query: err %v, want ErrQuery", err)
	}
}

func TestSearchTimeRangeAndSort(t *testing.T) {
	s := openFixture(t)
	ctx := context.Background()
	hits, err := s.Search(ctx, Request{Query: MustParse("source:proxy"), Since: t0.Add(30 * time.Second), Until: t0.Add(60 * time.Second), Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if hits.Total != 10 || !hits.Events[0].Time.Equal(t0.Add(30*time.Second)) {
		t.Fatalf("range: %d hits first %v", hits.Total, hits.Events[0].Time)
	}
	desc, _ := s.Search(ctx, Request{Query: MustParse("source:proxy"), Sort: SortTimeDesc, Limit: 3})
	if !desc.Events[0].Time.Equal(t0.Add(999 * 3 * time.Second)) {
		t.Errorf("-time: first %v", desc.Events[0].Time)
	}
	ev := hits.Events[0]
	if ev.Raw == "" || ev.Origin == "" || ev.DstPort != 443 {
		t.Errorf("stored event lost fields: %+v", ev)
	}
}

func TestFacetsFromCountsAndQuery(t *testing.T) {
	s := openFixture(t)
	ctx := context.Background()
	all, err := s.Facet(ctx, All(), time.Time{}, time.Time{}, "agent", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[0].Value != "agent-7" || all[0].Count != 334 {
		t.Errorf("whole-incident agent facet: %+v", all)
	}
	denied, err := s.Facet(ctx, MustParse("decision:deny"), time.Time{}, time.Time{}, "agent", 10)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, c := range denied {
		sum += c.Count
	}
	if sum != 100 {
		t.Errorf("denied by agent: %+v", denied)
	}
	if c := s.Counts(); c.Total != 1001 || !c.First.Equal(t0) {
		t.Errorf("counts: total %d first %v", c.Total, c.First)
	}
}

func TestPageWalksTheTimelineBothWays(t *testing.T) {
	s := openFixture(t)
	ctx := context.Background()
	var seen []Event
	req := PageRequest{Query: MustParse("source:proxy"), Limit: 64}
	for {
		p, err := s.Page(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, p.Events...)
		if !p.More {
			break
		}
		req.After = p.Last
	}
	if len(seen) != 1000 {
		t.Fatalf("forward pages saw %d events, want 1000", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Time.Before(seen[i-1].Time) {
			t.Fatalf("out of order at %d", i)
		}
	}
	// Backward from the end with a selective filter.
	back, err := s.Page(ctx, PageRequest{Query: MustParse("decision:deny"), Backward: true, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Events) != 5 || !back.Events[4].Time.Equal(t0.Add(990*3*time.Second)) {
		t.Fatalf("backward: %d events, last %v", len(back.Events), back.Events[len(back.Events)-1].Time)
	}
	// From an arbitrary point in time.
	mid, _ := s.Page(ctx, PageRequest{From: t0.Add(1500 * time.Second), Limit: 3})
	if !mid.Events[0].Time.Equal(t0.Add(1500 * time.Second)) {
		t.Errorf("from: first %v", mid.Events[0].Time)
	}
}

func TestIndexIsIdempotent(t *testing.T) {
	s := openFixture(t)
	n, err := s.Index(context.Background(), fixture()[:500], nil)
	if err != nil || n != 0 {
		t.Fatalf("re-index added %d (%v), want 0", n, err)
	}
	if c := s.Counts(); c.Total != 1001 {
		t.Errorf("counts changed on re-index: %d", c.Total)
	}
}

func TestGetAndState(t *testing.T) {
	s := openFixture(t)
	ctx := context.Background()
	if _, err := s.Index(ctx, nil, map[string][]byte{"ck": []byte("42")}); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.State("ck"); string(v) != "42" {
		t.Errorf("state: %q", v)
	}
	ev, err := s.Get(ctx, "sensor-1")
	if err != nil || ev.Pid != 4242 {
		t.Errorf("get: %+v %v", ev, err)
	}
	if _, err := s.Get(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("get missing: %v", err)
	}
}

func TestOpenOtherMappingVersion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index.bleve")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := os.WriteFile(filepath.Join(dir, versionFile), []byte("0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("err %v, want ErrIncompatible", err)
	}
}

func TestReopenKeepsCounts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index.bleve")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Index(context.Background(), fixture(), nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if c := r.Counts(); c.Total != 1001 {
		t.Errorf("reopened counts: %d", c.Total)
	}
	hits, err := r.Search(context.Background(), Request{Query: MustParse("agent:agent-9")})
	if err != nil || hits.Total != 333 {
		t.Errorf("reopened search: %v %v", hits, err)
	}
}

// TestCreateCloseReopen: a store created and closed before any event is
// indexed reopens (its mapping used to reach the disk only with a later
// batch: "error parsing mapping JSON" now and then).
func TestCreateCloseReopen(t *testing.T) {
	for i := 0; i < 20; i++ {
		dir := filepath.Join(t.TempDir(), "idx")
		st, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		again, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", i, err)
		}
		again.Close()
	}
}
