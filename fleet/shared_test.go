package fleet

import (
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// A message kept by one reader is taken by each of the others once, then
// forgotten; with one reader nothing is kept; past Max the oldest go; the
// events taken are clipped, so an append by one reader does not write
// into another's.
func TestSharedKeepsAMessageForTheOtherReaders(t *testing.T) {
	s := NewShared(3, 2)
	s.keep("S", 1, []evidence.Event{{ID: "a", Tags: append(make([]string, 0, 4), "x")}}, false)
	for range 2 {
		evs, _, ok := s.take("S", 1)
		if !ok || evs[0].ID != "a" {
			t.Fatal("a reader did not get the message another decoded")
		}
		if cap(evs[0].Tags) != len(evs[0].Tags) {
			t.Fatal("tags shared with spare capacity: an append would write into the other readers' event")
		}
	}
	if _, _, ok := s.take("S", 1); ok {
		t.Fatal("a message was kept after every other reader took it")
	}
	if _, _, ok := s.take("T", 1); ok {
		t.Fatal("a message of another stream was taken")
	}
	for seq := uint64(10); seq < 13; seq++ {
		s.keep("S", seq, []evidence.Event{{ID: "b"}}, true)
	}
	if _, _, ok := s.take("S", 10); ok {
		t.Fatal("more than Max messages kept")
	}
	if _, raw, ok := s.take("S", 12); !ok || !raw {
		t.Fatal("the newest message was not kept, or lost its being raw")
	}
	if s.Hits() != 3 {
		t.Fatalf("hits %d, want 3", s.Hits())
	}
	s.SetReaders(1)
	s.keep("S", 20, []evidence.Event{{ID: "c"}}, false)
	if _, _, ok := s.take("S", 20); ok {
		t.Fatal("a message was kept with no other reader to take it")
	}
}
