package vlogs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// The store's generation (evidence.Generationer) tells a replay log made
// from the case's events whether they are still those events. VictoriaLogs
// has no transactions and the checkpoints file is written after a batch
// is in the server, so a generation cannot be written in the same atomic
// step as the events it follows. It is made of three things instead:
//
//   - an intent: before the first write of events that is not settled yet
//     (an ingest batch that stores any, a Replace), the checkpoints file
//     records that a write is under way (stateDoc.Writing), fsynced and
//     renamed before the request goes out. While it stands, Generation is
//     "", which no replay log holds: a log is neither read nor written.
//   - a fresh random value (stateDoc.Generation), written with the intent
//     cleared once every write sent is settled: flushed, counted and
//     checkpointed. It rides on the checkpoint settling writes anyway: an
//     ingest pays one more fsync per settling (16 batches), for the intent.
//   - the number of records the server holds for the case, replacements
//     and what they superseded included, asked when Generation is. Every
//     write adds records and none are removed, so the count moves with
//     every write that becomes visible.
//
// Why that is sound. A replay log records the generation read before and
// after it read the events, and only when the two agree; suppose it
// recorded G/n and Generation later gives G/n again. G is random and
// replaced whenever a write of this workspace settles, so none settled
// since; and none is under way or was cut short by a crash, for its
// intent, on disk before its request went out, would give "" until a
// later write of this store settles — which flushes the server first, so
// that whatever the crashed run sent is visible and counted when the
// fresh value is written. A run that resumes a crashed one and stores
// nothing new leaves the intent as it found it. What cordon's writes do
// not account for the count does: every record added raises it (another
// workspace or process writing to the same case, a request that arrives
// late) and every record lost lowers it (VictoriaLogs makes a flushed
// write searchable at once but puts it on disk up to
// -inmemoryDataFlushInterval, 5 s, later: a server crash in between loses
// records the checkpoints file counts as written). Only a loss and an
// addition of as many records, with no write of this workspace between
// them, would go unseen. The file is read again on every call (a
// long-lived reader sees another process's writes), and twice around the
// count: a write that began or ended meanwhile gives "".

// newGenerationValue is a value no log has recorded.
func newGenerationValue() string {
	var r [16]byte
	_, _ = rand.Read(r[:])
	return hex.EncodeToString(r[:])
}

var _ evidence.Generationer = (*Store)(nil)

// Generation is the case's generation: its checkpoints file's value and
// the number of records the server holds for it; "" while a write is
// under way or was left so by a crash, and for a case no write of this
// version has touched.
func (s *Store) Generation() (string, error) {
	before, err := s.state.mark()
	if err != nil || before.Writing != "" || before.Generation == "" {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := s.count(ctx, s.streams(false))
	if err != nil {
		return "", err
	}
	after, err := s.state.mark()
	if err != nil || after != before {
		return "", err
	}
	return before.Generation + "/" + strconv.FormatInt(n, 10), nil
}

// beginWrite records this store's intent to write events, before the
// request goes out: Generation is "" until endWrite. An intent a crashed
// run left is taken over, not cleared: only a settling of this store's
// own writes (which flushes what the server holds) ends it.
func (s *Store) beginWrite() error {
	return s.state.update(nil, func(d *stateDoc) bool {
		if d.Writing == s.session {
			return false
		}
		d.Writing = s.session
		return true
	})
}

// endWrite puts a fresh generation in place of this store's intent, once
// every write it sent is settled.
func (s *Store) endWrite(d *stateDoc) bool {
	if d.Writing != s.session {
		return false
	}
	d.Writing, d.Generation = "", newGenerationValue()
	s.ownGen = d.Generation
	return true
}
