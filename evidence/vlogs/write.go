package vlogs

import (
	"context"
	"fmt"

	"github.com/cordon-ir/cordon/evidence"
)

// idChunk is how many events one Replace reads by id at most.
const idChunk = 2000

// listBudget is how many bytes of ids one query names: VictoriaLogs
// refuses a query longer than its -search.maxQueryLen, 16 KiB by default.
const listBudget = 12 << 10

// lists splits ids into LogsQL lists of at most listBudget bytes each.
func lists(ids []string) []string {
	var out []string
	var cur []string
	size := 0
	for _, id := range ids {
		n := len(quote(id)) + 1
		if size+n > listBudget && len(cur) > 0 {
			out = append(out, idList(cur))
			cur, size = nil, 0
		}
		cur = append(cur, id)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, idList(cur))
	}
	return out
}

// write sends replacement records of evs, each at the revision after
// the record it supersedes (named by id in supersedes), makes them
// searchable and checks they all landed.
func (s *Store) write(ctx context.Context, evs []evidence.Event, supersedes map[string]string) error {
	batch := fmt.Sprintf("%s-%d", s.session, s.batches.Add(1))
	var body []byte
	for i := range evs {
		prev := supersedes[evs[i].ID]
		var err error
		if body, err = appendRecord(body, s.caseID, batch, &evs[i], revision(prev)+1, prev); err != nil {
			return err
		}
	}
	if err := s.beginWrite(); err != nil {
		return fmt.Errorf("%w: checkpoint: %v", evidence.ErrWrite, err)
	}
	if err := s.c.insert(ctx, body, fieldCase+","+fieldReplaced); err != nil {
		return fmt.Errorf("%w: %v", evidence.ErrWrite, err)
	}
	want := map[string]int64{batch: int64(len(evs))}
	got, err := s.landed(ctx, []string{batch}, want)
	if err != nil {
		return fmt.Errorf("%w: %v", evidence.ErrWrite, err)
	}
	if got[batch] != want[batch] {
		return fmt.Errorf("%w: VictoriaLogs kept %d of %d replacements sent (docs/victorialogs.md)", evidence.ErrWrite, got[batch], want[batch])
	}
	return nil
}

// Replace rewrites events the case holds. VictoriaLogs cannot change a
// stored line, so a replacement is a new record of the same id and time at
// the next revision, naming the record it supersedes; reads leave the
// superseded ones out (Store.current).
func (s *Store) Replace(ctx context.Context, events []evidence.Event) (int, error) {
	if s.readOnly {
		return 0, ErrReadOnly
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.settle(ctx); err != nil { // what it replaces must be searchable
		return 0, err
	}
	n := 0
	for lo := 0; lo < len(events); lo += idChunk {
		k, err := s.replace(ctx, events[lo:min(lo+idChunk, len(events))])
		n += k
		if err != nil {
			return n, err // the intent stands: generation.go
		}
	}
	if n == 0 {
		return 0, nil // nothing written, nothing flushed: an intent stands as it was
	}
	// every replacement written has landed (write counted it after a flush)
	if err := s.state.update(nil, s.endWrite); err != nil {
		return n, fmt.Errorf("%w: checkpoint: %v", evidence.ErrWrite, err)
	}
	return n, nil
}

func (s *Store) replace(ctx context.Context, events []evidence.Event) (int, error) {
	ids := make([]string, len(events))
	for i, ev := range events {
		ids[i] = ev.ID
	}
	old := map[string]evidence.Event{}
	keys := map[string]string{}
	for _, list := range lists(ids) {
		err := s.c.query(ctx, s.current()+" id:in("+list+") | fields "+fieldEvent+", "+fieldKey, func(row map[string]string) error {
			ev, err := decode(row)
			old[ev.ID], keys[ev.ID] = ev, row[fieldKey]
			return err
		})
		if err != nil {
			return 0, err
		}
	}
	var repl []evidence.Event
	done := map[string]bool{}
	for _, ev := range events {
		prev, ok := old[ev.ID]
		if !ok || done[ev.ID] {
			continue
		}
		done[ev.ID] = true
		ev.Time = prev.Time // a replacement keeps its event's time
		repl = append(repl, ev)
	}
	if len(repl) == 0 {
		return 0, nil
	}
	s.mu.Lock()
	s.replaced = true // before the write: a read never sees both records
	s.mu.Unlock()
	if err := s.write(ctx, repl, keys); err != nil {
		return 0, err
	}
	s.mu.Lock()
	for i := range repl {
		prev := old[repl[i].ID]
		s.counts.Remove(&prev)
		s.counts.Add(&repl[i])
	}
	s.minutes = nil
	s.mu.Unlock()
	return len(repl), nil
}
