package evidence

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/search/query"
)

func TestSortKeyOrdersByTimeThenID(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	type ev struct {
		t  time.Time
		id string
	}
	var evs []ev
	for i := 0; i < 2000; i++ {
		sec := rnd.Int63n(4e9) - 2e9 // both sides of the epoch
		evs = append(evs, ev{time.Unix(sec, rnd.Int63n(1e9)), fmt.Sprintf("%016x", rnd.Uint64())})
	}
	evs = append(evs, ev{time.Unix(0, 0), "a"}, ev{time.Unix(0, 0), "b"}, ev{time.Unix(-1, 999999999), "z"})
	sort.Slice(evs, func(i, j int) bool {
		if !evs[i].t.Equal(evs[j].t) {
			return evs[i].t.Before(evs[j].t)
		}
		return evs[i].id < evs[j].id
	})
	for i := 1; i < len(evs); i++ {
		if a, b := sortKey(evs[i-1].t, evs[i-1].id), sortKey(evs[i].t, evs[i].id); a >= b {
			t.Fatalf("%v %s sorts after %v %s: %q >= %q", evs[i-1].t, evs[i-1].id, evs[i].t, evs[i].id, a, b)
		}
	}
}

// timeFixture spreads events over three days at random nanoseconds, with
// some on exact second, minute, hour and day boundaries.
func timeFixture(t *testing.T) (Store, []Event) {
	t.Helper()
	rnd := rand.New(rand.NewSource(7))
	base := time.Date(2026, 7, 20, 23, 0, 0, 0, time.UTC)
	var evs []Event
	for i := 0; i < 800; i++ {
		at := base.Add(time.Duration(rnd.Int63n(int64(72 * time.Hour))))
		switch i % 10 {
		case 0:
			at = at.Truncate(time.Second)
		case 1:
			at = at.Truncate(time.Minute)
		case 2:
			at = at.Truncate(time.Hour)
		}
		evs = append(evs, Event{ID: fmt.Sprintf("e%04d", i), Time: at, Source: SourceProxy, Kind: KindNetRequest, Message: "x"})
	}
	evs = append(evs, Event{ID: "midnight", Time: time.Date(2026, 7, 22, 0, 0, 0, 0, time.UTC), Source: SourceProxy, Message: "x"})
	s, err := Open(filepath.Join(t.TempDir(), "index.bleve"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Index(context.Background(), evs, nil); err != nil {
		t.Fatal(err)
	}
	return s, evs
}

func TestTimeRangesAreExact(t *testing.T) {
	s, evs := timeFixture(t)
	ctx := context.Background()
	rnd := rand.New(rand.NewSource(3))
	pick := func() time.Time {
		if rnd.Intn(3) == 0 { // an event's own time: the bounds must be exact
			return evs[rnd.Intn(len(evs))].Time
		}
		return evs[0].Time.Add(time.Duration(rnd.Int63n(int64(80*time.Hour))) - 4*time.Hour)
	}
	for i := 0; i < 300; i++ {
		a, b := pick(), pick()
		if b.Before(a) {
			a, b = b, a
		}
		want := 0
		for _, ev := range evs {
			if !ev.Time.Before(a) && ev.Time.Before(b) {
				want++
			}
		}
		hits, err := s.Search(ctx, Request{Since: a, Until: b, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if int(hits.Total) != want || len(hits.Events) != want {
			t.Fatalf("[%v, %v): total %d, %d events, want %d", a, b, hits.Total, len(hits.Events), want)
		}
	}
}

func TestQueryStringTimeRanges(t *testing.T) {
	s, evs := timeFixture(t)
	ctx := context.Background()
	at := evs[17].Time
	count := func(keep func(time.Time) bool) uint64 {
		var n uint64
		for _, ev := range evs {
			if keep(ev.Time) {
				n++
			}
		}
		return n
	}
	x := at.Format(time.RFC3339Nano)
	cases := []struct {
		q    string
		want uint64
	}{
		{`time:>"` + x + `"`, count(func(t time.Time) bool { return t.After(at) })},
		{`time:>="` + x + `"`, count(func(t time.Time) bool { return !t.Before(at) })},
		{`time:<"` + x + `"`, count(func(t time.Time) bool { return t.Before(at) })},
		{`time:<="` + x + `"`, count(func(t time.Time) bool { return !t.After(at) })},
		{`+kind:net_request +time:<"` + x + `"`, count(func(t time.Time) bool { return t.Before(at) }) - boolN(evs[len(evs)-1].Time.Before(at))},
	}
	for _, c := range cases {
		hits, err := s.Search(ctx, Request{Query: MustParse(c.q), Limit: 1})
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if hits.Total != c.want {
			t.Errorf("%s: %d hits, want %d", c.q, hits.Total, c.want)
		}
	}
}

func boolN(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func TestSearchPagesInTimeOrder(t *testing.T) {
	s, evs := timeFixture(t)
	ctx := context.Background()
	sorted := append([]Event(nil), evs...)
	sort.Slice(sorted, func(i, j int) bool {
		return sortKey(sorted[i].Time, sorted[i].ID) < sortKey(sorted[j].Time, sorted[j].ID)
	})
	for _, c := range []struct {
		sort          string
		offset, limit int
	}{{SortTime, 0, 10}, {SortTime, 395, 20}, {SortTimeDesc, 0, 7}, {SortTimeDesc, 790, 50}} {
		hits, err := s.Search(ctx, Request{Sort: c.sort, Offset: c.offset, Limit: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		for i, ev := range hits.Events {
			j := c.offset + i
			if c.sort == SortTimeDesc {
				j = len(sorted) - 1 - j
			}
			if ev.ID != sorted[j].ID {
				t.Fatalf("%s offset %d: row %d is %s, want %s", c.sort, c.offset, i, ev.ID, sorted[j].ID)
			}
		}
		if want := min(c.limit, len(sorted)-c.offset); len(hits.Events) != want {
			t.Errorf("%s offset %d: %d rows, want %d", c.sort, c.offset, len(hits.Events), want)
		}
	}
}

// TestSpanFilterAgreesWithSpan checks the two ways a query meets a time
// range (within picks one by cost) on the same ranges.
func TestSpanFilterAgreesWithSpan(t *testing.T) {
	st, evs := timeFixture(t)
	s := st.(*bleveStore)
	ctx := context.Background()
	rnd := rand.New(rand.NewSource(5))
	base := s.parse(MustParse("kind:net_request"))
	for i := 0; i < 100; i++ {
		a := evs[rnd.Intn(len(evs))].Time
		b := a.Add(time.Duration(rnd.Int63n(int64(30 * time.Hour))))
		filtered, err := s.count(ctx, &spanFilter{inner: base, lo: []byte(sortKey(a, "")), hi: []byte(sortKey(b, ""))})
		if err != nil {
			t.Fatal(err)
		}
		joined, err := s.count(ctx, query.NewConjunctionQuery([]query.Query{base, s.timeline().timeQuery(a, b)}))
		if err != nil {
			t.Fatal(err)
		}
		want := uint64(0)
		for _, ev := range evs {
			if ev.Kind == KindNetRequest && !ev.Time.Before(a) && ev.Time.Before(b) {
				want++
			}
		}
		if filtered != want || joined != want {
			t.Fatalf("[%v, %v): filter %d, span %d, want %d", a, b, filtered, joined, want)
		}
	}
}
