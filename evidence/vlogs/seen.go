package vlogs

import "hash/maphash"

// idFilter is a Bloom filter of the ids a case holds or was sent: an id
// it has never seen is new for certain, and only the few it may have
// seen are asked of the server (Store.fresh). It grows by adding filters
// twice the size of the last, so its false positives stay rare however
// many events a case ends with; 16 bits an id, about 2 MiB a million.
type idFilter struct {
	seed maphash.Seed
	sets []*bloom
}

type bloom struct {
	bits     []uint64
	held, at int // ids added, capacity
}

const (
	bitsPerID  = 16
	bloomProbe = 11 // about 0.05% false positives at capacity
)

func newIDFilter(capacity int) *idFilter {
	f := &idFilter{seed: maphash.MakeSeed()}
	f.grow(max(capacity, 1<<16))
	return f
}

func (f *idFilter) grow(capacity int) {
	f.sets = append(f.sets, &bloom{bits: make([]uint64, (capacity*bitsPerID+63)/64), at: capacity})
}

func (f *idFilter) hash(id string) (uint64, uint64) {
	h := maphash.String(f.seed, id)
	return h, h>>33 | h<<31 | 1
}

func (f *idFilter) add(id string) {
	last := f.sets[len(f.sets)-1]
	if last.held >= last.at {
		f.grow(2 * last.at)
		last = f.sets[len(f.sets)-1]
	}
	h1, h2 := f.hash(id)
	m := uint64(len(last.bits) * 64)
	for i := uint64(0); i < bloomProbe; i++ {
		b := (h1 + i*h2) % m
		last.bits[b/64] |= 1 << (b % 64)
	}
	last.held++
}

// mayHold is false when id was never added.
func (f *idFilter) mayHold(id string) bool {
	h1, h2 := f.hash(id)
	for _, s := range f.sets {
		m := uint64(len(s.bits) * 64)
		all := true
		for i := uint64(0); i < bloomProbe && all; i++ {
			b := (h1 + i*h2) % m
			all = s.bits[b/64]&(1<<(b%64)) != 0
		}
		if all {
			return true
		}
	}
	return false
}
