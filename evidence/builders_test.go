package evidence

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// Batches built at once, some repeating ids of batches still being built,
// land with every event counted once and the last state written.
func TestBuildersCountEachEventOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index.bleve")
	s, err := Open(dir, Options{Builders: 4})
	if err != nil {
		t.Fatal(err)
	}
	p := s.(Preparer)
	ctx := context.Background()
	var mu sync.Mutex
	stored, fresh, landed := 0, 0, 0
	const batches, size = 12, 300
	for b := range batches {
		// Each batch after the first repeats the last 50 events of the one
		// before it, which may still be building.
		from := max(0, b*size-50)
		prep, err := p.Prepare(noisyEvents(from, size+50))
		if err != nil {
			t.Fatal(err)
		}
		n, err := p.IndexPrepared(ctx, prep, map[string][]byte{"ck": []byte(strconv.Itoa(b))},
			func() { mu.Lock(); landed++; mu.Unlock() },
			func(n int) { mu.Lock(); stored += n; mu.Unlock() })
		if err != nil {
			t.Fatal(err)
		}
		fresh += n
	}
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	want := batches * size // the last batch ends at batches*size
	mu.Lock()
	if fresh != want || stored != want || landed != batches {
		t.Errorf("fresh %d, stored %d, landed %d batches; want %d, %d, %d", fresh, stored, landed, want, want, batches)
	}
	mu.Unlock()
	if got := s.Counts().Total; got != int64(want) {
		t.Errorf("counts say %d events, want %d", got, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.Search(ctx, Request{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	ck, _ := s.State("ck")
	if c := s.Counts(); c.Total != int64(want) || n.Total != uint64(want) || string(ck) != strconv.Itoa(batches-1) {
		t.Errorf("reopened: counts %d, index %d, state %q; want %d, %d, %q", c.Total, n.Total, ck, want, want, strconv.Itoa(batches-1))
	}
	if _, deltas, _, err := readCountsAndDeltas(s.(*bleveStore).index()); err != nil || len(deltas) != 0 {
		t.Errorf("deltas left after a clean close: %v, %v", deltas, err)
	}
}

// What a crash between a batch and its fold leaves (the batch's events and
// counts delta in the index, its state not written) opens with those
// events counted once, the earlier state, and a re-run that finds them all
// present.
func TestBatchWithoutItsFoldIsCountedOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index.bleve")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, second := noisyEvents(0, 200), noisyEvents(200, 300)
	if _, err := s.Index(ctx, first, map[string][]byte{"ck": []byte("first")}); err != nil {
		t.Fatal(err)
	}
	// The second batch as a builder writes it, and no fold after it.
	bs := s.(*bleveStore)
	prep, err := bs.Prepare(second)
	if err != nil {
		t.Fatal(err)
	}
	b := bs.index().NewBatch()
	var delta Counts
	for i, d := range prep.docs {
		if err := b.IndexAdvanced(d); err != nil {
			t.Fatal(err)
		}
		delta.add(&prep.events[i])
	}
	raw, _ := json.Marshal(delta)
	b.SetInternal(deltaKey(3), raw)
	if err := bs.commit(b, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Counts().Total; got != 500 {
		t.Errorf("reopened counts %d, want 500", got)
	}
	if ck, _ := s.State("ck"); string(ck) != "first" {
		t.Errorf("state %q, want the first batch's", ck)
	}
	n, err := s.Index(ctx, second, map[string][]byte{"ck": []byte("second")})
	if err != nil || n != 0 {
		t.Errorf("re-run of the second batch added %d (%v), want 0", n, err)
	}
	if got := s.Counts().Total; got != 500 {
		t.Errorf("counts after the re-run %d, want 500", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ck, _ := s.State("ck")
	_, deltas, _, _ := readCountsAndDeltas(s.(*bleveStore).index())
	if c := s.Counts(); c.Total != 500 || string(ck) != "second" || len(deltas) != 0 {
		t.Errorf("after the re-run: counts %d, state %q, deltas %v; want 500, second, none", c.Total, ck, deltas)
	}
}
