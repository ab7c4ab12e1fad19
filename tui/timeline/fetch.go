package timeline

import (
	"context"
	"errors"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
)

// where says where a fresh window of rows is anchored.
type where int

const (
	atStart  where = iota // the first events
	atEnd                 // the last events
	atCursor              // around an event (time, id)
)

// anchorMsg replaces the window: a new query, a jump, a refresh.
type anchorMsg struct {
	gen    int
	rows   []evidence.Event
	sel    int
	before bool // more events before rows[0]
	after  bool // more events after the last row
	keep   int  // screen row for the cursor, -1 to place it near the top
	want   string
	prev   *prevQuery // restored when the query fails
	err    error
}

// prevQuery is the query a failed new one falls back to.
type prevQuery struct {
	filter  evidence.Query
	search  string
	searchQ evidence.Query
	labels  labels
}

// extendMsg adds a page before or after the window.
type extendMsg struct {
	gen      int
	backward bool
	from     string // id of the row the page was fetched from
	rows     []evidence.Event
	more     bool
	err      error
}

// hitsMsg is how many events the query matches.
type hitsMsg struct {
	gen   int
	total uint64
	err   error
}

// deniedMsg is the denied-per-bucket series for the sparkline.
type deniedMsg struct {
	seq     int
	buckets evidence.Buckets
	series  []int64
	err     error
}

// matchMsg is the next/previous match of the last search (n/N) outside
// the current results.
type matchMsg struct {
	qgen  int
	ev    evidence.Event
	found bool
	err   error
	what  string // the jump's name ("denial"), "" for the last search
}

// fetchAnchor loads a window of up to 2*limit rows around at. It is a plain
// function of its arguments: the command built from it never touches the
// model.
func fetchAnchor(ctx context.Context, st evidence.Reader, query evidence.Query, w where, at evidence.Cursor, limit int) ([]evidence.Event, int, bool, bool, error) {
	switch w {
	case atStart:
		p, err := st.Page(ctx, evidence.PageRequest{Query: query, Limit: limit})
		if err != nil {
			return nil, 0, false, false, err
		}
		return p.Events, 0, false, p.More, nil
	case atEnd:
		p, err := st.Page(ctx, evidence.PageRequest{Query: query, Limit: limit, Backward: true})
		if err != nil {
			return nil, 0, false, false, err
		}
		return p.Events, len(p.Events) - 1, p.More, false, nil
	}
	fwd, err := st.Page(ctx, evidence.PageRequest{Query: query, From: at.Time, Limit: limit})
	if err != nil {
		return nil, 0, false, false, err
	}
	back := evidence.PageRequest{Query: query, Limit: limit, Backward: true, From: at.Time}
	if len(fwd.Events) > 0 {
		back.After, back.From = fwd.First, time.Time{}
	}
	bp, err := st.Page(ctx, back)
	if err != nil {
		return nil, 0, false, false, err
	}
	rows := append(append(make([]evidence.Event, 0, len(bp.Events)+len(fwd.Events)), bp.Events...), fwd.Events...)
	sel := len(bp.Events)
	for i := len(bp.Events); i < len(rows); i++ {
		if rows[i].ID == at.ID {
			sel = i
			break
		}
	}
	if sel >= len(rows) {
		sel = len(rows) - 1
	}
	return rows, max(sel, 0), bp.More, fwd.More, nil
}

func anchorCmd(m *Model, w where, at evidence.Cursor, keep int, want string, prev *prevQuery) tea.Cmd {
	ctx, st, gen, q, limit := m.com.Ctx, m.store, m.gen, m.query, m.pageSize()
	return m.com.Cmd(func() tea.Msg {
		rows, sel, before, after, err := fetchAnchor(ctx, st, q, w, at, limit)
		return anchorMsg{gen: gen, rows: rows, sel: sel, before: before, after: after, keep: keep, want: want, prev: prev, err: err}
	})
}

func extendCmd(m *Model, backward bool) tea.Cmd {
	ctx, st, gen, q, limit := m.com.Ctx, m.store, m.gen, m.query, m.pageSize()
	var from evidence.Cursor
	if backward {
		from = cursorOf(m.rows[0])
	} else {
		from = cursorOf(m.rows[len(m.rows)-1])
	}
	return m.com.Cmd(func() tea.Msg {
		p, err := st.Page(ctx, evidence.PageRequest{Query: q, After: from, Backward: backward, Limit: limit})
		if err != nil {
			return extendMsg{gen: gen, backward: backward, from: from.ID, err: err}
		}
		return extendMsg{gen: gen, backward: backward, from: from.ID, rows: p.Events, more: p.More && len(p.Events) > 0}
	})
}

func hitsCmd(m *Model) tea.Cmd {
	ctx, st, gen, q := m.com.Ctx, m.store, m.gen, m.query
	return m.com.Cmd(func() tea.Msg {
		if q.IsAll() { // counted at ingest: no need to count a million hits
			return hitsMsg{gen: gen, total: uint64(st.Counts().Total)}
		}
		h, err := st.Search(ctx, evidence.Request{Query: q, Limit: 1, Sort: evidence.SortScore})
		if err != nil {
			return hitsMsg{gen: gen, err: err}
		}
		return hitsMsg{gen: gen, total: h.Total}
	})
}

func deniedCmd(m *Model) tea.Cmd {
	ctx, st, seq, b := m.com.Ctx, m.store, m.sparkSeq, m.spark.b
	return m.com.Cmd(func() tea.Msg {
		s, err := evidence.DeniedSeries(ctx, st, b)
		return deniedMsg{seq: seq, buckets: b, series: s, err: err}
	})
}

// matchCmd finds the next (or previous) event after the cursor that
// matches the filter and the last search.
func matchCmd(m *Model, backward bool) tea.Cmd {
	return seekCmd(m, evidence.And(m.filter, m.lastSearchQ), backward, "")
}

// seekCmd finds the next (or previous) event after the cursor that
// matches q; what names the jump in the reply.
func seekCmd(m *Model, q evidence.Query, backward bool, what string) tea.Cmd {
	ctx, st, qgen := m.com.Ctx, m.store, m.qgen
	at := cursorOf(m.rows[m.cur])
	return m.com.Cmd(func() tea.Msg {
		p, err := st.Page(ctx, evidence.PageRequest{Query: q, After: at, Backward: backward, Limit: 1})
		if err != nil {
			return matchMsg{qgen: qgen, err: err, what: what}
		}
		if len(p.Events) == 0 {
			return matchMsg{qgen: qgen, what: what}
		}
		return matchMsg{qgen: qgen, ev: p.Events[0], found: true, what: what}
	})
}

func cursorOf(ev evidence.Event) evidence.Cursor { return evidence.Cursor{Time: ev.Time, ID: ev.ID} }

// quiet drops the error of a context that ended with the console.
func quiet(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
