package evidence

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A store open for reading rests: its index is closed, and the next read
// opens it again and gives what it gave before, whichever read it is. A
// store open for writing does not rest, and takes batches after Rest.
// A resting store closes without error, and stays closed.
func TestRestLetsTheIndexGoUntilRead(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "index.bleve")
	w, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	evs := fixture()
	if _, err := w.Index(ctx, evs[:1000], nil); err != nil {
		t.Fatal(err)
	}
	w.(Rester).Rest()
	if w.(*bleveStore).resting {
		t.Fatal("a store open for writing rested")
	}
	if n, err := w.Index(ctx, evs[1000:], nil); err != nil || n != 1 {
		t.Fatalf("a batch after Rest: %d new, %v", n, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	s := r.(*bleveStore)
	q := MustParse("agent:agent-9")
	type answer struct {
		hits  int
		page  []string
		count []Count
		got   string
		gen   string
	}
	read := func() answer {
		var a answer
		hits, err := r.Search(ctx, Request{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		a.hits = int(hits.Total)
		p, err := r.Page(ctx, PageRequest{Query: q, From: t0.Add(10 * time.Minute), Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range p.Events {
			a.page = append(a.page, ev.ID)
		}
		if a.count, err = r.Facet(ctx, All(), time.Time{}, time.Time{}, "dst_host", 3); err != nil {
			t.Fatal(err)
		}
		ev, err := r.Get(ctx, evs[500].ID)
		if err != nil {
			t.Fatal(err)
		}
		a.got = ev.Raw
		if a.gen, err = r.(Generationer).Generation(); err != nil {
			t.Fatal(err)
		}
		return a
	}
	same := func(a, b answer) bool {
		return a.hits == b.hits && slices.Equal(a.page, b.page) && slices.Equal(a.count, b.count) && a.got == b.got && a.gen == b.gen
	}
	before := read()
	if before.hits != 333 || len(before.page) != 5 || before.got != evs[500].Raw || before.gen == "" {
		t.Fatalf("the store read before resting: %+v", before)
	}
	for round := range 3 {
		r.(Rester).Rest()
		if !s.resting {
			t.Fatalf("round %d: the store did not rest", round)
		}
		if got := read(); !same(got, before) {
			t.Fatalf("round %d: after resting the store read %+v, before %+v", round, got, before)
		}
		if s.resting {
			t.Fatalf("round %d: a read left the index closed", round)
		}
	}
	r.(Rester).Rest()
	if err := r.Close(); err != nil {
		t.Fatalf("closing a resting store: %v", err)
	}
	if _, err := r.Search(ctx, Request{Query: q}); err == nil {
		t.Fatal("a closed store was opened again by a read")
	}
}
