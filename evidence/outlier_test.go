package evidence

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"
)

// openWith opens a store on t.TempDir() holding evs.
func openWith(t *testing.T, evs []Event) Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "index.bleve"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Index(context.Background(), evs, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// timeReads are the reads by time the timeline, the detectors and the
// console make: every page forward and back, a count and a page from a
// time on, a query string's time range, a facet over a range.
func timeReads(t *testing.T, s Store, from, to time.Time) {
	t.Helper()
	ctx := context.Background()
	for _, back := range []bool{false, true} {
		req := PageRequest{Limit: 2000, Backward: back}
		for {
			p, err := s.Page(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if !p.More || len(p.Events) == 0 {
				break
			}
			req.After = p.Last
			if back {
				req.After = p.First
			}
		}
	}
	reqs := []Request{
		{Since: from.Add(time.Nanosecond)},
		{Until: to},
		{Since: from.Add(time.Second), Sort: SortTimeDesc},
		{Query: MustParse(`time:>"` + from.Add(time.Millisecond).Format(time.RFC3339Nano) + `"`)},
		{Query: MustParse("kind:tool_call"), Since: from.Add(time.Nanosecond)},
	}
	for _, r := range reqs {
		if _, err := s.Search(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Facet(ctx, MustParse("kind:tool_call"), from.Add(time.Nanosecond), to, "kind", 5); err != nil {
		t.Fatal(err)
	}
}

// TestRecordDated9999IsNoDenialOfService: with one normal event and one
// at 9999-12-31T23:59:59Z, every read by time planned over the calendar
// days between them, three million bucket terms a query, and `cordon
// findings` took 4.9 GB. The reads must cost what two events cost.
func TestRecordDated9999IsNoDenialOfService(t *testing.T) {
	normal := time.Date(2026, 7, 21, 10, 4, 11, 250e6, time.UTC)
	far := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	s := openWith(t, []Event{
		{ID: "normal", Time: normal, Source: SourceLedger, Kind: KindToolCall, Message: "ls"},
		{ID: "far", Time: far, Source: SourceLedger, Kind: KindToolCall, Message: "ls"},
	})
	timeReads(t, s, normal, far) // warm: the first read lays out the timeline
	const limit = 16 << 20
	n := allocated(func() { timeReads(t, s, normal, far) })
	t.Logf("reads by time allocated %d KB", n>>10)
	if n > limit {
		t.Fatalf("reads by time over two events allocated %d MB, want under %d MB", n>>20, limit>>20)
	}
	hits, err := s.Search(context.Background(), Request{Since: normal.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if hits.Total != 1 || len(hits.Events) != 1 || hits.Events[0].ID != "far" {
		t.Fatalf("since the normal event: %d hits %v, want the far one", hits.Total, hits.Events)
	}
}

// TestTimeReadsOverRandomYears: 10,000 events dated at random between the
// years 1 and 9999 are found exactly by any range, paged in order, and a
// range costs what its populated buckets cost.
func TestTimeReadsOverRandomYears(t *testing.T) {
	rnd := rand.New(rand.NewSource(9))
	times := randomYears(rnd, 10000)
	evs := make([]Event, len(times))
	for i, at := range times {
		evs[i] = Event{ID: fmt.Sprintf("e%05d", i), Time: at, Source: SourceSensor, Kind: KindProcExec, Message: "x"}
	}
	st := openWith(t, evs)
	ctx := context.Background()
	sort.Slice(evs, func(i, j int) bool { return sortKey(evs[i].Time, evs[i].ID) < sortKey(evs[j].Time, evs[j].ID) })

	c := st.Counts()
	if c.Total != 10000 || !c.First.Equal(evs[0].Time) || !c.Last.Equal(evs[len(evs)-1].Time) {
		t.Fatalf("counts: %d events, %v – %v, want 10000, %v – %v", c.Total, c.First, c.Last, evs[0].Time, evs[len(evs)-1].Time)
	}
	if sp := c.MainSpan(); sp.Outside() != 0 {
		t.Errorf("events spread evenly have %d outside the main span", sp.Outside())
	}

	// every event, in order, by pages forward and back
	for _, back := range []bool{false, true} {
		req := PageRequest{Limit: 700, Backward: back}
		var got []Event
		for {
			p, err := st.Page(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if back {
				got = append(append([]Event(nil), p.Events...), got...)
				req.After = p.First
			} else {
				got = append(got, p.Events...)
				req.After = p.Last
			}
			if !p.More || len(p.Events) == 0 {
				break
			}
		}
		if len(got) != len(evs) {
			t.Fatalf("backward %v: paged %d events, want %d", back, len(got), len(evs))
		}
		for i := range got {
			if got[i].ID != evs[i].ID {
				t.Fatalf("backward %v: row %d is %s, want %s", back, i, got[i].ID, evs[i].ID)
			}
		}
	}

	for i := 0; i < 30; i++ {
		a, b := evs[rnd.Intn(len(evs))].Time, evs[rnd.Intn(len(evs))].Time
		if b.Before(a) {
			a, b = b, a
		}
		lo := sort.Search(len(evs), func(k int) bool { return !evs[k].Time.Before(a) })
		hi := sort.Search(len(evs), func(k int) bool { return !evs[k].Time.Before(b) })
		var hits *Hits
		n := allocated(func() {
			var err error
			if hits, err = st.Search(ctx, Request{Since: a, Until: b, Limit: 5}); err != nil {
				t.Fatal(err)
			}
		})
		if int(hits.Total) != hi-lo {
			t.Fatalf("[%v, %v): %d hits, want %d", a, b, hits.Total, hi-lo)
		}
		for k, ev := range hits.Events {
			if ev.ID != evs[lo+k].ID {
				t.Fatalf("[%v, %v): hit %d is %s, want %s", a, b, k, ev.ID, evs[lo+k].ID)
			}
		}
		// a few kilobytes per populated day inside, whatever the years
		if limit := uint64(hi-lo)*8<<10 + 4<<20; n > limit {
			t.Errorf("[%v, %v) over %d events allocated %d KB, want under %d KB", a, b, hi-lo, n>>10, limit>>10)
		}
	}
}
