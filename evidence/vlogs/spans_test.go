package vlogs_test

import (
	"context"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/evidence/vlogs/vlogstest"
)

// pager hides a store's Spans and counts the pages read through it.
type pager struct {
	evidence.Reader
	pages *atomic.Int64
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

func (s spanner) Spans(ctx context.Context, field string) (map[string]evidence.ValueSpan, error) {
	return s.sp.Spans(ctx, field)
}

// The agents' summary from the store's spans (one stats query) is the one
// two pages per agent give, and reads pages only for the agents whose
// first event it needs.
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
