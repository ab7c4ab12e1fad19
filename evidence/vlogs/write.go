package vlogs

import (
	"bytes"
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

// Index adds the events whose ids the case does not hold yet, then records
// state. VictoriaLogs keeps every line it is sent, so the store decides
// what is new: ids repeated in the batch are taken once, and the case is
// asked which of the batch's ids it holds already (a re-run after a crash
// between the write and the checkpoint sends the batch again; this check
// is what keeps it from being stored twice). After the write the store
// counts what landed: VictoriaLogs drops lines it will not keep (outside
// its retention, too long) without failing the request, and a checkpoint
// must never pass an event that is not there.
func (s *Store) Index(ctx context.Context, events []evidence.Event, state map[string][]byte) (int, error) {
	if s.readOnly {
		return 0, ErrReadOnly
	}
	var batch []evidence.Event
	seen := map[string]bool{}
	for _, ev := range events {
		if !seen[ev.ID] {
			seen[ev.ID] = true
			ev.Time = ev.Time.UTC()
			batch = append(batch, ev)
		}
	}
	held, err := s.held(ctx, batch)
	if err != nil {
		return 0, err
	}
	var fresh []evidence.Event
	for _, ev := range batch {
		if !held[ev.ID] {
			fresh = append(fresh, ev)
		}
	}
	if err := s.write(ctx, fresh, 0, nil); err != nil {
		return 0, err
	}
	s.mu.Lock()
	for i := range fresh {
		s.counts.Add(&fresh[i])
	}
	s.mu.Unlock()
	if err := s.state.put(state); err != nil {
		return len(fresh), fmt.Errorf("%w: checkpoint: %v", evidence.ErrWrite, err)
	}
	return len(fresh), nil
}

// held returns which of the events' ids the case holds.
func (s *Store) held(ctx context.Context, evs []evidence.Event) (map[string]bool, error) {
	out := map[string]bool{}
	ids := make([]string, len(evs))
	for i, ev := range evs {
		ids[i] = ev.ID
	}
	for _, list := range lists(ids) {
		q := s.streams(false) + " id:in(" + list + ") | uniq by (id)"
		if err := s.c.query(ctx, q, func(row map[string]string) error {
			out[row["id"]] = true
			return nil
		}); err != nil {
			return nil, fmt.Errorf("which events the case holds: %w", err)
		}
	}
	return out, nil
}

// write sends records of evs at revision rev (replacing the records
// supersedes names, by id, when rev > 0), makes them searchable and checks
// they all landed.
func (s *Store) write(ctx context.Context, evs []evidence.Event, rev int, supersedes map[string]string) error {
	if len(evs) == 0 {
		return nil
	}
	var body bytes.Buffer
	keys := make([]string, 0, len(evs))
	for i := range evs {
		r := rev
		if supersedes != nil {
			r = revision(supersedes[evs[i].ID]) + 1
		}
		line, err := record(s.caseID, &evs[i], r, supersedes[evs[i].ID])
		if err != nil {
			return err
		}
		body.Write(line)
		body.WriteByte('\n')
		keys = append(keys, recordKey(evs[i].ID, r))
	}
	streams := fieldCase
	if supersedes != nil {
		streams += "," + fieldReplaced
	}
	if err := s.c.insert(ctx, body.Bytes(), streams); err != nil {
		return fmt.Errorf("%w: %v", evidence.ErrWrite, err)
	}
	if err := s.c.flush(ctx); err != nil {
		return fmt.Errorf("%w: %v", evidence.ErrWrite, err)
	}
	var landed int64
	for _, list := range lists(keys) {
		n, err := s.count(ctx, s.streams(false)+" "+fieldKey+":in("+list+")")
		if err != nil {
			return fmt.Errorf("%w: %v", evidence.ErrWrite, err)
		}
		landed += n
	}
	if landed != int64(len(keys)) {
		return fmt.Errorf("%w: VictoriaLogs kept %d of %d events sent (check its -retentionPeriod covers the incident's dates and -insert.maxLineSizeBytes its largest record; docs/victorialogs.md)",
			evidence.ErrWrite, landed, len(keys))
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
	n := 0
	for lo := 0; lo < len(events); lo += idChunk {
		k, err := s.replace(ctx, events[lo:min(lo+idChunk, len(events))])
		n += k
		if err != nil {
			return n, err
		}
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
	if err := s.write(ctx, repl, 0, keys); err != nil {
		return 0, err
	}
	s.mu.Lock()
	for i := range repl {
		prev := old[repl[i].ID]
		s.counts.Remove(&prev)
		s.counts.Add(&repl[i])
	}
	s.mu.Unlock()
	return len(repl), nil
}
