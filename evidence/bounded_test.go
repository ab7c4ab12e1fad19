package evidence

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// slowStore answers nothing until its caller gives up.
type slowStore struct{ Store }

func (slowStore) Search(ctx context.Context, _ Request) (*Hits, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// A bounded store ends each query at its timeout and caps what an answer
// carries: hits and bytes. A served console reads through it.
func TestBoundedStore(t *testing.T) {
	st := NewMemStore()
	var evs []Event
	for i := range 500 {
		evs = append(evs, Event{ID: fmt.Sprintf("e%03d", i), Time: time.Unix(int64(i), 0).UTC(), Source: "ledger", Kind: "tool_call",
			Message: strings.Repeat("x", 1000)})
	}
	if _, err := st.Index(context.Background(), evs, nil); err != nil {
		t.Fatal(err)
	}
	b := Bounded(st, Bounds{Timeout: 50 * time.Millisecond, MaxHits: 100, MaxBytes: 20_000})
	h, err := b.Search(context.Background(), Request{Query: All(), Limit: 100_000})
	if err != nil || h.Total != 500 || len(h.Events) != 20 {
		t.Errorf("search: total %d, %d events (%v), want 500 and the 20 that fit in 20 kB", h.Total, len(h.Events), err)
	}
	p, err := b.Page(context.Background(), PageRequest{Query: All(), Limit: 100_000})
	if err != nil || len(p.Events) != 20 || !p.More || p.Last.ID != "e019" {
		t.Errorf("page: %d events, more %v, last %v (%v)", len(p.Events), p.More, p.Last, err)
	}
	began := time.Now()
	_, err = Bounded(slowStore{st}, Bounds{Timeout: 50 * time.Millisecond}).Search(context.Background(), Request{Query: All()})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(began) > 5*time.Second {
		t.Errorf("a query past its timeout: %v after %s", err, time.Since(began))
	}
}

// A pattern built to be huge is refused before the index builds its
// automaton: long, with too many steps, or too many wildcards.
func TestPatternsAreBounded(t *testing.T) {
	st := NewMemStore()
	for _, q := range []Query{
		Regexp("cmdline", strings.Repeat("(a|b)", 300)),
		Regexp("cmdline", "x{1,1000}y{1,1000}z{1,500}"),
		Wildcard("url", strings.Repeat("*a", 20)),
		Wildcard("url", strings.Repeat("a", 2000)),
	} {
		if _, err := st.Search(context.Background(), Request{Query: q}); !errors.Is(err, ErrQuery) || !strings.Contains(err.Error(), "over") {
			t.Errorf("%.60s: %v", q, err)
		}
	}
	for _, q := range []Query{Regexp("cmdline", "curl.*(evil|bad)\\.com"), Wildcard("dst_host", "*.s3.amazonaws.com")} {
		if _, err := st.Search(context.Background(), Request{Query: q}); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}
