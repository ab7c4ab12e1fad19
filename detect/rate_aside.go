package detect

import (
	"encoding/binary"
	"fmt"
	"os"
)

// A rate rule keeps the events of every window of at least min_events
// for citing, until the whole span's baseline says which are flagged: at
// ten million events in six hours nearly every ten-second window of a
// busy agent qualifies, and their hits were the largest part of the
// pass's heap (104 MB) though few are ever read. Past asideAfter bytes of
// hits in memory, a window's hits are set aside as it closes: written to
// a temporary file, removed from its directory as soon as it is made (the
// descriptor keeps it until the pass is collected), and read back when a
// flagged window is cited. What cannot be written stays in memory.

// asideAfter is how many bytes of hits a rate rule holds in memory before
// it sets closed windows' aside: a quarter of a million hits. At a million
// events the bench incident's are 2.5 MB, none set aside.
const asideAfter = 4 << 20

const hitSize = 16 // a rateHit written: its offset and id, 8 bytes each

// hitsAside is the file a rate rule's closed windows' hits are written
// to, each window's as one or more extents.
type hitsAside struct {
	f    *os.File
	size int64
	err  error // the file could not be made, or written: nothing more is set aside
	buf  []byte
}

// extent is hits set aside: n of them from byte at.
type extent struct {
	at int64
	n  int
}

// put writes hits and gives where; false when they stay in memory.
func (a *hitsAside) put(hits []rateHit) (extent, bool) {
	if a.err != nil || len(hits) == 0 {
		return extent{}, false
	}
	if a.f == nil {
		if a.f, a.err = makeAsideFile(); a.err != nil {
			return extent{}, false
		}
	}
	a.buf = a.buf[:0]
	for _, h := range hits {
		a.buf = binary.LittleEndian.AppendUint64(a.buf, uint64(h.off))
		a.buf = binary.LittleEndian.AppendUint64(a.buf, h.id)
	}
	if _, err := a.f.WriteAt(a.buf, a.size); err != nil {
		a.err = err
		return extent{}, false
	}
	e := extent{at: a.size, n: len(hits)}
	a.size += int64(len(a.buf))
	return e, true
}

// get appends the hits of e to hits.
func (a *hitsAside) get(hits []rateHit, e extent) ([]rateHit, error) {
	b := make([]byte, e.n*hitSize)
	if _, err := a.f.ReadAt(b, e.at); err != nil {
		return hits, fmt.Errorf("reading back %d events set aside: %w", e.n, err)
	}
	for ; len(b) >= hitSize; b = b[hitSize:] {
		hits = append(hits, rateHit{off: int64(binary.LittleEndian.Uint64(b)), id: binary.LittleEndian.Uint64(b[8:])})
	}
	return hits, nil
}

// makeAsideFile makes a file in the temporary directory that no other
// process can open by name: where it cannot be removed while open, none
// is made.
func makeAsideFile() (*os.File, error) {
	f, err := os.CreateTemp("", "cordon-rate-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}
