package vlogs_test

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/evidence/vlogs/vlogstest"
)

// pager hides a store's Spans and what its counts keep of each agent,
// and counts the pages read through it.
type pager struct {
	evidence.Reader
	pages *atomic.Int64
}

func (p pager) Counts() evidence.Counts {
	c := p.Reader.Counts()
	c.AgentsKept, c.Agents = false, nil
	return c
}

func (p pager) Page(ctx context.Context, r evidence.PageRequest) (*evidence.Page, error) {
	p.pages.Add(1)
	return p.Reader.Page(ctx, r)
}

// spanner counts the pages read and keeps the store's Spans.
type spanner struct {
	pager
	sp evidence.Spanner
}

// counted counts the pages read through a store whose Spans must not be
// asked.
type counted struct {
	evidence.Reader
	pages *atomic.Int64
}

func (c counted) Page(ctx context.Context, r evidence.PageRequest) (*evidence.Page, error) {
	c.pages.Add(1)
	return c.Reader.Page(ctx, r)
}

func (counted) Spans(context.Context, string) (map[string]evidence.ValueSpan, error) {
	return nil, errors.New("spans asked for, the counts keep them")
}

func (s spanner) Spans(ctx context.Context, field string) (map[string]evidence.ValueSpan, error) {
	return s.sp.Spans(ctx, field)
}

// The agents' summary from the store's spans (one stats query) is the one
// two pages per agent give, and reads pages only for the agents whose
// first event it needs; so is the one from what the counts keep, which
// asks for no span.
func TestAgentsFromSpansAreTheAgentsFromPages(t *testing.T) {
	ctx := context.Background()
	st := open(t, vlogstest.Start(t), "spans", t.TempDir())
	if _, err := st.Index(ctx, contractEvents(t), nil); err != nil {
		t.Fatal(err)
	}
	var byPages, bySpans atomic.Int64
	want, err := attribution.Agents(ctx, pager{st, &byPages})
	if err != nil {
		t.Fatal(err)
	}
	got, err := attribution.Agents(ctx, spanner{pager{st, &bySpans}, st})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 3 || !reflect.DeepEqual(got, want) {
		t.Errorf("agents from spans:\n%+v\nfrom pages:\n%+v", got, want)
	}
	if byPages.Load() != int64(2*len(want)) || bySpans.Load() >= byPages.Load() {
		t.Errorf("%d pages read with the spans, %d without, for %d agents", bySpans.Load(), byPages.Load(), len(want))
	}
	var byCounts atomic.Int64
	kept, err := attribution.Agents(ctx, counted{st, &byCounts})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(kept, want) {
		t.Errorf("agents from the counts:\n%+v\nfrom pages:\n%+v", kept, want)
	}
	if byCounts.Load() != bySpans.Load() {
		t.Errorf("%d pages read with the counts, %d with the spans", byCounts.Load(), bySpans.Load())
	}
	spans, err := st.Spans(ctx, "agent")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range want {
		if sp := spans[a.Agent]; !sp.First.Equal(a.First) || !sp.Last.Equal(a.Last) {
			t.Errorf("%s: span %s to %s, pages %s to %s", a.Agent, sp.First, sp.Last, a.First, a.Last)
		}
	}
	if _, err := st.Spans(ctx, "message"); err == nil {
		t.Error("spans of an analysed text field were given")
	}
}
