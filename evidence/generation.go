package evidence

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/blevesearch/bleve/v2"
)

// Generationer is a store that can say whether its events changed: what
// Generation returns changes with every write of events (an Index batch
// that stored any, a Replace), and a crash that loses a write never
// leaves a generation equal to one recorded while the events differed.
// The index writes it in the same atomic batch as the events; a store
// without transactions (evidence/vlogs) gives "" from before a write goes
// out until it is settled. Something derived from the events (the
// engine's replay log) records the generation it was made at, and is of
// the store's events while the two are equal; "" is no generation, and
// nothing is kept by it.
type Generationer interface {
	Generation() (string, error)
}

const generationKey = "cordon:generation"

// Generation is the index's generation: "" for an index no write of this
// version has touched.
func (s *bleveStore) Generation() (string, error) {
	v, err := s.index().GetInternal([]byte(generationKey))
	return string(v), err
}

// newGeneration puts a generation of its own in a batch that writes
// events. Batches built side by side each write their own: whichever
// lands last, the generation differs from every one before them.
func newGeneration(b *bleve.Batch) {
	var r [16]byte
	_, _ = rand.Read(r[:])
	b.SetInternal([]byte(generationKey), []byte(hex.EncodeToString(r[:])))
}
