package vlogs

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// stateFileName holds a case's checkpoints in its workspace folder.
const stateFileName = "victorialogs-state.json"

// stateFile is the checkpoints Index records, written whole (a temporary
// file, fsynced, renamed) after the batch they follow is in VictoriaLogs,
// and the store's generation (generation.go).
type stateFile struct {
	path string
	mu   sync.Mutex
	doc  stateDoc
}

type stateDoc struct {
	Case  string            `json:"case"`
	State map[string][]byte `json:"state"`
	// Generation and Writing make the store's generation (generation.go):
	// a value set anew once a write is settled, and the session whose
	// write is under way.
	Generation string `json:"generation,omitempty"`
	Writing    string `json:"writing,omitempty"`
}

// genMark is the part of the file a generation is made of.
type genMark struct{ Generation, Writing string }

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

// update merges state into the checkpoints and lets mark change the
// generation's part (reporting whether it did), and writes the file whole
// when anything changed: a temporary file, fsynced, renamed, and the
// folder fsynced, so that an intent is on disk before the write it
// announces goes out.
func (f *stateFile) update(state map[string][]byte, mark func(*stateDoc) bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, v := range state {
		f.doc.State[k] = append([]byte(nil), v...)
	}
	changed := len(state) > 0
	if mark != nil && mark(&f.doc) {
		changed = true
	}
	if !changed {
		return nil
	}
	b, err := json.Marshal(f.doc)
	if err != nil {
		return err
	}
	return writeSynced(f.path, b)
}

// writeSynced writes a file whole: a temporary file, fsynced, renamed, and
// its folder fsynced.
func writeSynced(path string, b []byte) error {
	tmp := path + ".tmp"
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
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// mark reads the generation's part of the file as it is on disk now:
// another process may have written it since this one opened it.
func (f *stateFile) mark() (genMark, error) {
	b, err := os.ReadFile(f.path)
	if os.IsNotExist(err) {
		return genMark{}, nil
	}
	if err != nil {
		return genMark{}, err
	}
	var d stateDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return genMark{}, fmt.Errorf("%s: %w", f.path, err)
	}
	return genMark{d.Generation, d.Writing}, nil
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
	// what the counts keep of each agent, asked beside the rest
	var agents evidence.AgentAnswers
	wg.Add(1)
	go func() {
		defer wg.Done()
		sem <- struct{}{}
		defer func() { <-sem }()
		var err error
		if agents, err = evidence.AskAgents(ctx, s, math.MaxInt32); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	}()
	wg.Wait()
	if len(errs) > 0 {
		return c, errs[0]
	}
	c.AgentsKept, c.Agents = true, agents.Counts(c.Fields["agent"])
	return c, nil
}

func floorMinute(t time.Time) int64 {
	u := t.Unix()
	if u < 0 && u%60 != 0 {
		return u/60 - 1
	}
	return u / 60
}
