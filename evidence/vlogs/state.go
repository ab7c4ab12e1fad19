package vlogs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// stateFileName holds a case's checkpoints in its workspace folder.
const stateFileName = "victorialogs-state.json"

// stateFile is the checkpoints Index records, written whole (a temporary
// file, fsynced, renamed) after the batch they follow is in VictoriaLogs.
type stateFile struct {
	path string
	mu   sync.Mutex
	doc  stateDoc
}

type stateDoc struct {
	Case  string            `json:"case"`
	State map[string][]byte `json:"state"`
}

func openState(dir, caseID string) (*stateFile, error) {
	if dir == "" {
		return nil, fmt.Errorf("victorialogs store: no folder for its checkpoints")
	}
	f := &stateFile{path: filepath.Join(dir, stateFileName), doc: stateDoc{Case: caseID, State: map[string][]byte{}}}
	b, err := os.ReadFile(f.path)
	switch {
	case os.IsNotExist(err):
		return f, nil
	case err != nil:
		return nil, err
	}
	if err := json.Unmarshal(b, &f.doc); err != nil {
		return nil, fmt.Errorf("%s: %w", f.path, err)
	}
	if f.doc.Case != caseID {
		return nil, fmt.Errorf("%s holds the checkpoints of case %q, not %q", f.path, f.doc.Case, caseID)
	}
	if f.doc.State == nil {
		f.doc.State = map[string][]byte{}
	}
	return f, nil
}

func (f *stateFile) get(key string) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.doc.State[key]
}

func (f *stateFile) put(state map[string][]byte) error {
	if len(state) == 0 {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, v := range state {
		f.doc.State[k] = append([]byte(nil), v...)
	}
	b, err := json.Marshal(f.doc)
	if err != nil {
		return err
	}
	tmp := f.path + ".tmp"
	w, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return err
	}
	if err := w.Sync(); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, f.path)
}

// readCounts asks VictoriaLogs for the case's counts: the total and span,
// each counted field's values, the events per minute.
func (s *Store) readCounts(ctx context.Context) (evidence.Counts, error) {
	c := evidence.Counts{Fields: map[string]map[string]int64{}, Minutes: map[int64]int64{}}
	cur := s.current()
	err := s.c.query(ctx, cur+" | stats count() n, min(_time) lo, max(_time) hi", func(row map[string]string) error {
		if _, err := fmt.Sscan(row["n"], &c.Total); err != nil {
			return err
		}
		if c.Total == 0 {
			return nil
		}
		var err error
		if c.First, err = time.Parse(time.RFC3339Nano, row["lo"]); err == nil {
			c.Last, err = time.Parse(time.RFC3339Nano, row["hi"])
		}
		return err
	})
	if err != nil || c.Total == 0 {
		return c, err
	}
	// the rest at once, a few in flight: fifteen queries one after another
	// were most of a console's open
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
		sem  = make(chan struct{}, 4)
	)
	ask := func(q string, row func(map[string]string) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			err := s.c.query(ctx, q, func(r map[string]string) error {
				mu.Lock()
				defer mu.Unlock()
				return row(r)
			})
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	for _, f := range evidence.CountedFields {
		col := f
		if f == "dst_host" {
			col = fieldHostRaw // counted as ingested, not lowercased
		}
		m := map[string]int64{}
		c.Fields[f] = m
		ask(cur+" | stats by ("+col+") count() n", func(row map[string]string) error {
			var n int64
			_, err := fmt.Sscan(row["n"], &n)
			m[row[col]] += n
			return err
		})
	}
	ask(cur+" | stats by (_time:1m) count() n", func(row map[string]string) error {
		t, err := time.Parse(time.RFC3339Nano, row["_time"])
		if err != nil {
			return err
		}
		var n int64
		_, err = fmt.Sscan(row["n"], &n)
		c.Minutes[floorMinute(t)] += n
		return err
	})
	ask(cur+" cut:* | stats count() n", func(row map[string]string) error {
		_, err := fmt.Sscan(row["n"], &c.Cut)
		return err
	})
	wg.Wait()
	if len(errs) > 0 {
		return c, errs[0]
	}
	return c, nil
}

func floorMinute(t time.Time) int64 {
	u := t.Unix()
	if u < 0 && u%60 != 0 {
		return u/60 - 1
	}
	return u / 60
}
