package fleet

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)

func TestDedupForgetsPastItsHorizonOnly(t *testing.T) {
	d := NewDedup(DedupConfig{Horizon: time.Hour, Buckets: 4})
	d.Add("00112233aabbccdd", t0)
	d.Add("stage-key~stage:RequestReceived", t0.Add(20*time.Minute))
	if !d.Seen("00112233aabbccdd") || !d.Seen("stage-key~stage:RequestReceived") || d.Seen("ffffffffffffffff") {
		t.Fatal("Seen does not answer what was added")
	}
	// within the horizon of the newest: kept
	d.Add("a", t0.Add(59*time.Minute))
	if !d.Seen("00112233aabbccdd") {
		t.Fatal("forgotten within its horizon")
	}
	// an hour and a bucket (15 minutes) later: its bucket is gone, the
	// later ones not
	d.Add("b", t0.Add(time.Hour+15*time.Minute))
	if d.Seen("00112233aabbccdd") {
		t.Fatal("remembered past its horizon")
	}
	if !d.Seen("stage-key~stage:RequestReceived") || !d.Seen("a") {
		t.Fatal("forgot keys within the horizon")
	}
	if s := d.Stats(); s.Keys != 3 || s.Covered > time.Hour || s.Shortened != 0 {
		t.Fatalf("stats %+v", s)
	}
	// a key older than the horizon is not kept (a late redelivery)
	d.Add("old", t0)
	if d.Seen("old") {
		t.Fatal("kept a key older than the horizon")
	}
}

func TestDedupOlderMessageFallsInItsOwnBucket(t *testing.T) {
	d := NewDedup(DedupConfig{Horizon: time.Hour, Buckets: 4})
	d.Add("late", t0.Add(40*time.Minute))
	d.Add("redelivered", t0.Add(5*time.Minute)) // stored earlier, handled later
	d.Add("next", t0.Add(50*time.Minute))
	if !d.Seen("redelivered") {
		t.Fatal("a key stored before the newest was not kept")
	}
	d.Add("last", t0.Add(75*time.Minute))
	// the redelivered key's bucket (t0..t0+15m) ends at t0+75m-1h
	if d.Seen("redelivered") || !d.Seen("late") || !d.Seen("next") {
		t.Fatal("buckets out of order")
	}
}

func TestDedupMemoryIsBoundedByMaxKeys(t *testing.T) {
	d := NewDedup(DedupConfig{Horizon: time.Hour, Buckets: 60, MaxKeys: 1000})
	for i := range 5000 {
		d.Add(fmt.Sprintf("key-%d", i), t0.Add(time.Duration(i)*100*time.Millisecond))
	}
	s := d.Stats()
	if s.Keys > 1000 || s.Shortened != 5000-int64(s.Keys) {
		t.Fatalf("stats %+v: more than 1000 keys, or the dropped not counted", s)
	}
	if s.Covered >= time.Hour {
		t.Fatalf("covered %v though keys were dropped early", s.Covered)
	}
	if !d.Seen("key-4999") || d.Seen("key-0") {
		t.Fatal("kept the oldest rather than the newest")
	}
}

func TestDedupSavedAndReadBack(t *testing.T) {
	d := NewDedup(DedupConfig{Horizon: time.Hour, Buckets: 4})
	for i := range 100 {
		d.Add(fmt.Sprintf("%016x", i*7919), t0.Add(time.Duration(i)*time.Second))
	}
	var buf bytes.Buffer
	if _, err := d.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	saved := buf.Bytes()
	back, err := ReadDedup(bytes.NewReader(saved))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if !back.Seen(fmt.Sprintf("%016x", i*7919)) {
			t.Fatalf("key %d lost", i)
		}
	}
	if back.Stats() != d.Stats() {
		t.Fatalf("stats %+v, were %+v", back.Stats(), d.Stats())
	}
	for _, bad := range [][]byte{nil, []byte("cordon-dedup/1\n"), saved[:len(saved)-3], append([]byte("x"), saved...)} {
		if _, err := ReadDedup(bytes.NewReader(bad)); err == nil {
			t.Errorf("read %d bytes of a damaged set without an error", len(bad))
		}
	}
}

func TestKeyHashKeepsEventIDsAndHashesTheRest(t *testing.T) {
	if keyHash("00000000000000ff") != 0xff {
		t.Fatal("an event id is not kept as its own 64 bits")
	}
	if keyHash("00000000000000FF") == 0xff || keyHash("ff") == keyHash("FF") {
		t.Fatal("keys that are no event id are not hashed")
	}
}
