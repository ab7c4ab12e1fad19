package vlogs

import (
	"bytes"
	"hash/maphash"
	"sync"

	"github.com/cordon-ir/cordon/evidence"
)

// words are the distinct words of texts, as the index keeps an event's
// text, one per line.
func words(texts ...string) string {
	l := linesPool.Get().(*wordLines)
	defer linesPool.Put(l)
	l.reset()
	for _, t := range texts {
		for w := range evidence.EventWords(t) {
			l.add(w)
		}
	}
	return string(l.b)
}

// wordLines collects distinct words one per line, without a string for
// each: a word is looked up by its hash among those kept and compared
// with the bytes it was kept as. Most of a record's words are repeats
// (a raw record's keys), and a map of strings cost an allocation each.
type wordLines struct {
	b     []byte
	spans [][2]int32 // each word's bounds in b
	slots []int32    // open addressing over spans: index+1, 0 free
	seed  maphash.Seed
}

var linesPool = sync.Pool{New: func() any { return &wordLines{seed: maphash.MakeSeed()} }}

func (l *wordLines) reset() {
	l.b, l.spans = l.b[:0], l.spans[:0]
	if len(l.slots) > 1<<12 {
		l.slots = nil // one huge record does not make every later one clear its table
	}
	clear(l.slots)
}

// add appends w on a line of its own unless it is there already.
func (l *wordLines) add(w []byte) {
	if 2*(len(l.spans)+1) > len(l.slots) {
		l.grow()
	}
	mask := uint64(len(l.slots) - 1)
	for i := maphash.Bytes(l.seed, w) & mask; ; i = (i + 1) & mask {
		s := l.slots[i]
		if s == 0 {
			if len(l.b) > 0 {
				l.b = append(l.b, '\n')
			}
			l.spans = append(l.spans, [2]int32{int32(len(l.b)), int32(len(l.b) + len(w))})
			l.b = append(l.b, w...)
			l.slots[i] = int32(len(l.spans))
			return
		}
		if sp := l.spans[s-1]; bytes.Equal(l.b[sp[0]:sp[1]], w) {
			return
		}
	}
}

// grow doubles the table (at least 64 slots) and places the words kept.
func (l *wordLines) grow() {
	l.slots = make([]int32, max(64, 2*len(l.slots)))
	mask := uint64(len(l.slots) - 1)
	for k, sp := range l.spans {
		i := maphash.Bytes(l.seed, l.b[sp[0]:sp[1]]) & mask
		for l.slots[i] != 0 {
			i = (i + 1) & mask
		}
		l.slots[i] = int32(k + 1)
	}
}
