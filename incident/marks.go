package incident

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/journal"
)

// marksFile holds the events a responder marked, beside the index.
const marksFile = "marks.json"

// Mark is an event a responder set aside to come back to.
type Mark struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Summary string    `json:"summary,omitempty"`
	Marked  time.Time `json:"marked"`
}

// Marks is the workspace's set of marked events, kept in time order and
// written to marks.json (atomically) on every change. It is safe for
// concurrent use: the console toggles marks from background commands.
type Marks struct {
	path    string
	now     func() time.Time
	journal *journal.Journal

	mu   sync.Mutex
	list []Mark
}

// OpenMarks reads DIR/marks.json (absent: no marks yet).
func OpenMarks(dir string) (*Marks, error) {
	j, err := journal.Open(dir)
	if err != nil {
		return nil, err
	}
	m := &Marks{path: filepath.Join(dir, marksFile), now: time.Now, journal: j}
	b, err := os.ReadFile(m.path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read marks: %w", err)
	}
	if err := json.Unmarshal(b, &m.list); err != nil {
		return nil, fmt.Errorf("%s: %w", m.path, err)
	}
	sortMarks(m.list)
	return m, nil
}

// Marks returns the workspace's marks, opening them on first use.
func (w *Workspace) Marks() (*Marks, error) {
	w.marksOnce.Do(func() {
		w.marks, w.marksErr = OpenMarks(w.Dir)
		if w.marksErr == nil {
			w.marks.journal = w.journal // one clock: a drill's is scenario time
		}
	})
	return w.marks, w.marksErr
}

// List returns a copy of the marks in time order.
func (m *Marks) List() []Mark {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Mark(nil), m.list...)
}

// Toggle marks ev, or unmarks it if it was marked, saves, and journals it
// under actor. It reports whether ev is marked afterwards.
func (m *Marks) Toggle(ctx context.Context, actor journal.Actor, ev evidence.Event) (bool, error) {
	if actor.Observer {
		return false, journal.ErrReadOnly
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	next := make([]Mark, 0, len(m.list)+1)
	marked := true
	for _, k := range m.list {
		if k.ID == ev.ID {
			marked = false
			continue
		}
		next = append(next, k)
	}
	if marked {
		next = append(next, Mark{ID: ev.ID, Time: ev.Time, Summary: summary(ev), Marked: m.now().UTC()})
		sortMarks(next)
	}
	b, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return !marked, err
	}
	typ := journal.EntryMark
	if !marked {
		typ = journal.EntryUnmark
	}
	if _, err := m.journal.Append(ctx, journal.Entry{Actor: actor, Type: typ, Event: ev.ID, Text: summary(ev)}); err != nil {
		return !marked, fmt.Errorf("journal the mark: %w", err)
	}
	if err := writeAtomic(m.path, append(b, '\n')); err != nil {
		return !marked, fmt.Errorf("save marks: %w", err)
	}
	m.list = next
	return marked, nil
}

// Next returns the first mark after the cursor (time, then id), wrapping
// around to the first mark; ok is false when there are none.
func (m *Marks) Next(after evidence.Cursor) (Mark, bool) {
	return NextMark(m.List(), after)
}

// NextMark is Marks.Next on a list in time order.
func NextMark(list []Mark, after evidence.Cursor) (Mark, bool) {
	if len(list) == 0 {
		return Mark{}, false
	}
	for _, k := range list {
		if k.Time.After(after.Time) || k.Time.Equal(after.Time) && k.ID > after.ID {
			return k, true
		}
	}
	return list[0], true
}

// PrevMark is the mark before the cursor, wrapping to the last: NextMark
// the other way.
func PrevMark(list []Mark, before evidence.Cursor) (Mark, bool) {
	if len(list) == 0 {
		return Mark{}, false
	}
	for i := len(list) - 1; i >= 0; i-- {
		k := list[i]
		if k.Time.Before(before.Time) || k.Time.Equal(before.Time) && k.ID < before.ID {
			return k, true
		}
	}
	return list[len(list)-1], true
}

func sortMarks(l []Mark) {
	sort.Slice(l, func(i, j int) bool {
		if !l[i].Time.Equal(l[j].Time) {
			return l[i].Time.Before(l[j].Time)
		}
		return l[i].ID < l[j].ID
	})
}

// summary is a short line that identifies a marked event in marks.json.
func summary(ev evidence.Event) string {
	s := ev.Kind
	if ev.Agent != "" {
		s = ev.Agent + " " + s
	}
	if ev.Message != "" {
		s += ": " + ev.Message
	}
	if r := []rune(s); len(r) > 160 {
		s = string(r[:159]) + "…"
	}
	return s
}
