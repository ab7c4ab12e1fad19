package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

var t0 = time.Date(2026, 7, 21, 8, 0, 0, 0, time.UTC)

func served(t *testing.T) (evidence.Store, *Client, []byte) {
	t.Helper()
	st := evidence.NewMemStore()
	var evs []evidence.Event
	for i := range 200 {
		evs = append(evs, evidence.Event{ID: fmt.Sprintf("e%03d", i), Time: t0.Add(time.Duration(i) * time.Second), Source: "proxy", Format: "squid",
			Kind: "http", Agent: fmt.Sprintf("Agent-%d", i%3), DstHost: fmt.Sprintf("h%d.example", i%7), BytesOut: int64(i * 10),
			Message: fmt.Sprintf("GET /path/%d", i)})
	}
	if _, err := st.Index(context.Background(), evs, nil); err != nil {
		t.Fatal(err)
	}
	token := bytes.Repeat([]byte{7}, TokenSize)
	srv, err := Serve(st, token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := Dial(srv.Addr(), token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return st, c, token
}

// What a served reader answers is what the store answers, for queries of
// every node kind (the query crosses node for node, folding and bounds
// kept); a missing event is ErrNotFound on both sides.
func TestServedReaderAnswersAsTheStore(t *testing.T) {
	st, c, _ := served(t)
	ctx := context.Background()
	lo, hi := 500.0, 900.0
	queries := []evidence.Query{
		evidence.All(),
		evidence.Term("agent", "agent-1").Fold(),
		evidence.Term("agent", "agent-1"),
		evidence.And(evidence.Prefix("dst_host", "h3"), evidence.Not(evidence.Term("agent", "Agent-0"))),
		evidence.Or(evidence.Wildcard("dst_host", "h?.example"), evidence.IDs("e001", "e002")),
		evidence.NumRange("bytes_out", &lo, &hi, true, false),
		evidence.And(evidence.Within(t0.Add(10*time.Second), t0.Add(20*time.Second)), evidence.Regexp("dst_host", "h[12]\\.example")),
		evidence.Term("", "path"),
	}
	for _, q := range queries {
		req := evidence.Request{Query: q, Limit: 500, Sort: evidence.SortTimeDesc}
		want, err := st.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Search(ctx, req)
		if err != nil || got.Total != want.Total || len(got.Events) != len(want.Events) {
			t.Errorf("%s: %v, %d events, want %d", q, err, len(got.Events), len(want.Events))
			continue
		}
		for i := range got.Events {
			if got.Events[i].ID != want.Events[i].ID {
				t.Errorf("%s: event %d is %s, want %s", q, i, got.Events[i].ID, want.Events[i].ID)
				break
			}
		}
		wf, _ := st.Facet(ctx, q, time.Time{}, time.Time{}, "dst_host", 10)
		gf, err := c.Facet(ctx, q, time.Time{}, time.Time{}, "dst_host", 10)
		if err != nil || fmt.Sprint(gf) != fmt.Sprint(wf) {
			t.Errorf("%s: facet %v (%v), want %v", q, gf, err, wf)
		}
	}
	if _, err := c.Get(ctx, "nope"); !errors.Is(err, evidence.ErrNotFound) {
		t.Errorf("get of no event: %v", err)
	}
	if ev, err := c.Get(ctx, "e150"); err != nil || ev.BytesOut != 1500 {
		t.Errorf("get: %+v, %v", ev, err)
	}
	p, err := c.Page(ctx, evidence.PageRequest{Query: evidence.Term("agent", "Agent-2"), Limit: 10})
	if err != nil || len(p.Events) != 10 || !p.More {
		t.Errorf("page: %v %+v", err, p)
	}
	if c.Counts().Total != 200 {
		t.Errorf("counts: %+v", c.Counts())
	}
}

// A client without the token is refused before any read.
func TestServedReaderWantsTheToken(t *testing.T) {
	st := evidence.NewMemStore()
	token := bytes.Repeat([]byte{1}, TokenSize)
	srv, err := Serve(st, token)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	wrong := bytes.Repeat([]byte{2}, TokenSize)
	if c, err := Dial(srv.Addr(), wrong); err == nil {
		c.Close()
		t.Fatal("a wrong token was let read")
	}
	if _, err := Serve(st, token[:5]); err == nil {
		t.Error("a short token was taken")
	}
}

// A call cancelled by its caller returns at once; a server closed ends
// every connection, and the client's reads fail rather than hang.
func TestServedReaderEnds(t *testing.T) {
	st := evidence.NewMemStore()
	token := bytes.Repeat([]byte{3}, TokenSize)
	srv, err := Serve(st, token)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(srv.Addr(), token)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Search(ctx, evidence.Request{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call: %v", err)
	}
	srv.Close()
	if _, err := c.Search(context.Background(), evidence.Request{}); err == nil {
		t.Error("a read after the server closed succeeded")
	}
}

// A program on the port that takes the connection and never answers is
// not waited for past the dial's bound.
func TestDialDoesNotWaitForeverOnASilentPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, silent
		}
	}()
	defer func(d time.Duration) { dialTimeout = d }(dialTimeout)
	dialTimeout = 300 * time.Millisecond
	start := time.Now()
	if c, err := Dial(ln.Addr().String(), bytes.Repeat([]byte{1}, TokenSize)); err == nil {
		c.Close()
		t.Fatal("a silent port was taken for a served reader")
	}
	if took := time.Since(start); took > 2*dialTimeout {
		t.Errorf("took %v", took)
	}
}
