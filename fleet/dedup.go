package fleet

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"
)

// JetStream drops a message whose Nats-Msg-Id it took within its duplicate
// window (minutes), and no further: the same file shipped again after its
// checkpoint was lost, a batch sent again after a shipper died between the
// acknowledgement and its checkpoint once the window had passed, a sensor
// publishing a record twice, all reach the stream twice. A Dedup drops them
// in the reader.
//
// It remembers event keys by the time the stream stored the message (the
// server's clock, not the event's, which the log's writer chose) in
// buckets of Horizon/Buckets, and forgets a bucket once it is Horizon older
// than the newest message read: a key is remembered for at least Horizon,
// at most Horizon and one bucket. A copy that reaches the stream within the
// Horizon of the first is dropped; one that comes later is delivered again.
// Memory is bounded by MaxKeys: past it the oldest bucket is dropped early,
// which shortens the horizon (Stats says by how much), never the memory.
// A key is 8 bytes in a Go map; with the map's own overhead 4M keys over 48
// buckets measured 105 MB of heap (26 bytes a key). So the horizon a reader
// really covers is the shorter of Horizon and MaxKeys divided by its event
// rate: 24h at 46 events/s, 80 seconds at 50,000.

// DedupConfig sizes a Dedup.
type DedupConfig struct {
	Horizon time.Duration // default 24h
	Buckets int           // default 48 (30-minute buckets for 24h)
	MaxKeys int           // default 4,000,000
}

// Dedup defaults.
const (
	DefaultHorizon = 24 * time.Hour
	DefaultBuckets = 48
	DefaultMaxKeys = 4_000_000
)

// Dedup is a bounded set of event keys over a horizon of stream time. It
// is not safe for concurrent use; a Reader uses it from one goroutine.
type Dedup struct {
	horizon, width time.Duration
	maxKeys        int
	buckets        []dedupBucket // oldest first, starts increasing
	keys           int
	newest         time.Time
	shortened      int64 // keys forgotten before the horizon because of MaxKeys
}

type dedupBucket struct {
	start time.Time // a multiple of width
	keys  map[uint64]struct{}
}

// NewDedup makes an empty set.
func NewDedup(c DedupConfig) *Dedup {
	if c.Horizon <= 0 {
		c.Horizon = DefaultHorizon
	}
	if c.Buckets <= 0 {
		c.Buckets = DefaultBuckets
	}
	if c.MaxKeys <= 0 {
		c.MaxKeys = DefaultMaxKeys
	}
	width := max(c.Horizon/time.Duration(c.Buckets), time.Millisecond)
	return &Dedup{horizon: c.Horizon, width: width, maxKeys: c.MaxKeys}
}

// keyHash is the 64 bits a key is kept as: an event id is already 16 hex
// digits of a SHA-256 (evidence.MakeID), and any other key (an earlier
// stage's, an id a parser took from its record) is hashed the same way, so
// that no one who writes a record can aim its key at another's.
func keyHash(key string) uint64 {
	if len(key) == 16 {
		var b [8]byte
		if _, err := hex.Decode(b[:], []byte(key)); err == nil && hex.EncodeToString(b[:]) == key {
			return binary.BigEndian.Uint64(b[:])
		}
	}
	sum := sha256.Sum256([]byte(key))
	return binary.BigEndian.Uint64(sum[:8])
}

// Seen reports whether key was added and is still remembered.
func (d *Dedup) Seen(key string) bool {
	h := keyHash(key)
	for i := len(d.buckets) - 1; i >= 0; i-- {
		if _, ok := d.buckets[i].keys[h]; ok {
			return true
		}
	}
	return false
}

// Add remembers key as stored on the stream at t. A key older than the
// horizon (of the newest t added) is not kept.
func (d *Dedup) Add(key string, t time.Time) {
	if t.After(d.newest) {
		d.newest = t
		d.expire()
	}
	start := t.Truncate(d.width)
	if !start.Add(d.width).After(d.newest.Add(-d.horizon)) {
		return
	}
	i := len(d.buckets) - 1
	for i >= 0 && d.buckets[i].start.After(start) {
		i--
	}
	if i < 0 || !d.buckets[i].start.Equal(start) {
		// a new bucket, in order (a redelivered message is older than
		// the newest, and may fall before every bucket kept)
		d.buckets = append(d.buckets, dedupBucket{})
		copy(d.buckets[i+2:], d.buckets[i+1:])
		i++
		d.buckets[i] = dedupBucket{start: start, keys: map[uint64]struct{}{}}
	}
	h := keyHash(key)
	if _, ok := d.buckets[i].keys[h]; ok {
		return
	}
	d.buckets[i].keys[h] = struct{}{}
	d.keys++
	for d.keys > d.maxKeys && len(d.buckets) > 1 {
		d.shortened += int64(len(d.buckets[0].keys))
		d.drop()
	}
}

// expire forgets the buckets wholly older than the horizon.
func (d *Dedup) expire() {
	edge := d.newest.Add(-d.horizon)
	for len(d.buckets) > 0 && !d.buckets[0].start.Add(d.width).After(edge) {
		d.drop()
	}
}

func (d *Dedup) drop() {
	d.keys -= len(d.buckets[0].keys)
	d.buckets[0] = dedupBucket{}
	d.buckets = d.buckets[1:]
}

// DedupStats describes what a Dedup holds.
type DedupStats struct {
	Keys int `json:"keys"`
	// Covered is the stretch of stream time it remembers: the horizon,
	// or less when MaxKeys forced older buckets out (Shortened keys).
	Covered   time.Duration `json:"covered"`
	Horizon   time.Duration `json:"horizon"`
	Shortened int64         `json:"shortened,omitempty"`
}

// Stats says what it holds.
func (d *Dedup) Stats() DedupStats {
	s := DedupStats{Keys: d.keys, Horizon: d.horizon, Shortened: d.shortened}
	if len(d.buckets) > 0 {
		s.Covered = min(d.newest.Sub(d.buckets[0].start), d.horizon)
	}
	return s
}

// dedupMagic starts a saved Dedup.
const dedupMagic = "cordon-dedup/1\n"

// WriteTo saves the set, for a consumer that keeps it with its own
// checkpoint: a restarted reader given it back (ReadDedup) drops what a
// message redelivered after the restart carries and was handled before.
func (d *Dedup) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	n := int64(0)
	put := func(v uint64) {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], v)
		m, _ := bw.Write(b[:])
		n += int64(m)
	}
	m, _ := bw.WriteString(dedupMagic)
	n += int64(m)
	put(uint64(d.horizon))
	put(uint64(d.width))
	put(uint64(d.maxKeys))
	put(uint64(d.newest.UnixNano()))
	put(uint64(d.shortened))
	put(uint64(len(d.buckets)))
	for _, b := range d.buckets {
		put(uint64(b.start.UnixNano()))
		put(uint64(len(b.keys)))
		for k := range b.keys {
			put(k)
		}
	}
	return n, bw.Flush()
}

// ReadDedup reads a set WriteTo saved.
func ReadDedup(r io.Reader) (*Dedup, error) {
	br := bufio.NewReader(r)
	magic := make([]byte, len(dedupMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != dedupMagic {
		return nil, errors.New("not a saved de-duplication set")
	}
	var err error
	get := func() uint64 {
		var b [8]byte
		if err == nil {
			_, err = io.ReadFull(br, b[:])
		}
		return binary.BigEndian.Uint64(b[:])
	}
	d := &Dedup{horizon: time.Duration(get()), width: time.Duration(get()), maxKeys: int(get())}
	d.newest = time.Unix(0, int64(get())).UTC()
	d.shortened = int64(get())
	nb := get()
	if err == nil && (d.horizon <= 0 || d.width <= 0 || d.maxKeys <= 0 || nb > uint64(d.horizon/d.width)+2) {
		err = errors.New("its sizes do not hold together")
	}
	for i := uint64(0); err == nil && i < nb; i++ {
		b := dedupBucket{start: time.Unix(0, int64(get())).UTC()}
		nk := get()
		if err == nil && nk > uint64(d.maxKeys) {
			err = fmt.Errorf("a bucket of %d keys, more than its bound %d", nk, d.maxKeys)
		}
		b.keys = make(map[uint64]struct{}, min(nk, 1<<16))
		for j := uint64(0); err == nil && j < nk; j++ {
			b.keys[get()] = struct{}{}
		}
		d.keys += len(b.keys)
		d.buckets = append(d.buckets, b)
	}
	if err != nil {
		return nil, fmt.Errorf("saved de-duplication set: %w", err)
	}
	return d, nil
}
