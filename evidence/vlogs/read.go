package vlogs

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// A sorted read (a search's page, a timeline page) asks first how many of
// its records fall in each of about histBuckets spans of time, then sorts
// only the spans that hold its page: VictoriaLogs sorts every record a
// query matches, and sorting the 2,700 records of one agent in a 100,000
// event case took most of a 20 ms search. The first answer also gives a
// search its total.
const histBuckets = 512

// bucket is how many of a read's records are at or after from and
// before from plus the histogram's step.
type bucket struct {
	from time.Time
	n    int64
}

// step is the width of a read's histogram buckets over [since, until)
// within the case's span (as last counted: a case that grew since only
// gets more buckets), whole seconds; 0 when the case is not known to
// hold anything, and the read sorts everything it matches.
func (s *Store) step(since, until time.Time) time.Duration {
	s.mu.RLock()
	lo, hi, total := s.counts.First, s.counts.Last, s.counts.Total
	s.mu.RUnlock()
	if total == 0 {
		return 0
	}
	if !since.IsZero() && since.After(lo) {
		lo = since
	}
	if !until.IsZero() && until.Before(hi) {
		hi = until
	}
	st := hi.Sub(lo) / histBuckets
	return max(time.Second, st.Truncate(time.Second)+time.Second)
}

// minuteEdge is where the whole minutes after at's (before it, when
// desc) that the case's counts say hold n records end (begin); zero when
// they hold fewer. A case only grows, so the minutes hold at least that.
func (s *Store) minuteEdge(at time.Time, n int64, desc bool) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.minutes == nil {
		s.minutes = make([]int64, 0, len(s.counts.Minutes))
		for m := range s.counts.Minutes {
			s.minutes = append(s.minutes, m)
		}
		sort.Slice(s.minutes, func(i, j int) bool { return s.minutes[i] < s.minutes[j] })
	}
	keys := s.minutes
	m := floorMinute(at)
	if at.IsZero() && desc {
		m = math.MaxInt64
	}
	var sum int64
	if !desc {
		for i := sort.Search(len(keys), func(i int) bool { return keys[i] > m }); i < len(keys); i++ {
			if sum += s.counts.Minutes[keys[i]]; sum >= n {
				return time.Unix((keys[i]+1)*60, 0)
			}
		}
		return time.Time{}
	}
	for i := sort.Search(len(keys), func(i int) bool { return keys[i] >= m }) - 1; i >= 0; i-- {
		if sum += s.counts.Minutes[keys[i]]; sum >= n {
			return time.Unix(keys[i]*60, 0)
		}
	}
	return time.Time{}
}

// histogram counts the records of filter w per step, oldest first.
func (s *Store) histogram(ctx context.Context, w string, step time.Duration) ([]bucket, error) {
	var out []bucket
	q := w + " | stats by (_time:" + strconv.FormatInt(int64(step/time.Second), 10) + "s) count() n"
	err := s.c.query(ctx, q, func(row map[string]string) error {
		t, err := time.Parse(time.RFC3339Nano, row["_time"])
		if err != nil {
			return fmt.Errorf("victorialogs histogram: %w", err)
		}
		b := bucket{from: t}
		_, err = fmt.Sscan(row["n"], &b.n)
		out = append(out, b)
		return err
	})
	sort.Slice(out, func(i, j int) bool { return out[i].from.Before(out[j].from) })
	return out, err
}

// window is the span of buckets that holds the records skip+1 to
// skip+want in time order (newest first when desc), and how many of the
// span's records come before them; a zero bound is open.
func window(bs []bucket, step time.Duration, skip, want int64, desc bool) (from, to time.Time, before int64) {
	var seen int64
	started := false
	for k := range bs {
		i := k
		if desc {
			i = len(bs) - 1 - k
		}
		b := bs[i]
		if !started && seen+b.n > skip {
			started, before = true, skip-seen
			if desc {
				to = b.from.Add(step)
			} else {
				from = b.from
			}
		}
		seen += b.n
		if started && seen >= skip+want {
			if desc {
				from = b.from
			} else {
				to = b.from.Add(step)
			}
			return from, to, before
		}
	}
	return from, to, before
}

// sorted reads up to limit records of filter w after skipping skip, in
// the timeline's order (newest first when desc), sorting only the
// buckets that hold them.
func (s *Store) sorted(ctx context.Context, w string, bs []bucket, step time.Duration, skip, limit int64, desc bool) ([]evidence.Event, error) {
	if bs != nil {
		from, to, before := window(bs, step, skip, limit, desc)
		if t := timeFilter(from, to); t != "*" {
			w += " " + t
		}
		skip = before
	}
	order := fieldSort
	if desc {
		order += " desc"
	}
	q := fmt.Sprintf("%s | sort by (%s) offset %d limit %d", w, order, skip, limit)
	if skip == 0 {
		q = fmt.Sprintf("%s | sort by (%s) limit %d", w, order, limit)
	}
	return s.events(ctx, q)
}

// Search runs a typed query: its histogram (its total), then its page
// from the buckets that hold it.
func (s *Store) Search(ctx context.Context, r evidence.Request) (*evidence.Hits, error) {
	began := time.Now()
	desc, err := r.NewestFirst()
	if err != nil {
		return nil, err
	}
	if r.Query.Op() == evidence.OpNone {
		return &evidence.Hits{}, nil
	}
	parts, err := s.wheres(r.Query, r.Since, r.Until)
	if err != nil {
		return nil, err
	}
	offset, limit := int64(max(0, r.Offset)), int64(limitOr(r.Limit))
	if len(parts) > 1 {
		h, err := s.searchParts(ctx, parts, offset, limit, desc)
		if h != nil {
			h.Took = time.Since(began)
		}
		return h, err
	}
	w := parts[0]
	h := &evidence.Hits{}
	step := s.step(r.Since, r.Until)
	if step == 0 {
		// nothing counted: the total and the page at once
		n, evs, err := s.countAndSort(ctx, w, "", offset, limit, desc)
		h.Total, h.Events, h.Took = uint64(n), evs, time.Since(began)
		return h, err
	}
	if edge := s.guess(r, offset+limit, desc); !edge.IsZero() {
		// the total and the page from a span the counts say likely holds
		// it, at once; a page short of what the total says stays is read
		// again the long way
		bound := " _time:<" + stamp(edge)
		if desc {
			bound = " _time:>=" + stamp(edge)
		}
		var n int64
		var evs []evidence.Event
		if c, ok := s.counted(r); ok {
			// the whole case's total is in the counts kept: the page alone
			n = c
			evs, err = s.sorted(ctx, w+bound, nil, 0, offset, limit, desc)
		} else {
			n, evs, err = s.countAndSort(ctx, w, bound, offset, limit, desc)
		}
		if err != nil {
			return nil, err
		}
		if int64(len(evs)) == max(0, min(limit, n-offset)) {
			h.Total, h.Events, h.Took = uint64(n), evs, time.Since(began)
			return h, nil
		}
	}
	bs, err := s.histogram(ctx, w, step)
	if err != nil {
		return nil, err
	}
	var n int64
	for _, b := range bs {
		n += b.n
	}
	h.Total = uint64(n)
	if n > offset {
		if h.Events, err = s.sorted(ctx, w, bs, step, offset, limit, desc); err != nil {
			return nil, err
		}
	}
	h.Took = time.Since(began)
	return h, nil
}

// countAndSort counts the records of filter w and reads a page of them
// within bound, at once.
func (s *Store) countAndSort(ctx context.Context, w, bound string, offset, limit int64, desc bool) (int64, []evidence.Event, error) {
	var n int64
	var cerr error
	done := make(chan struct{})
	go func() { defer close(done); n, cerr = s.count(ctx, w) }()
	evs, err := s.sorted(ctx, w+bound, nil, 0, offset, limit, desc)
	<-done
	if err == nil {
		err = cerr
	}
	return n, evs, err
}

// guess is where a span from the start of a search (its end, when
// newest first) likely holds its first want records, from the counts
// kept: for every record, or one value of a counted field (agent:agent-7,
// the console's commonest search), twice the span that share of the case
// would need. Zero for any other query, or when the counts cannot say.
// A span from the start is exact whenever it holds enough: every record
// outside it sorts after every record in it.
func (s *Store) guess(r evidence.Request, want int64, desc bool) time.Time {
	n, total, ok := s.termCount(r.Query)
	if !ok || n == 0 || total == 0 {
		return time.Time{}
	}
	share := float64(n) / float64(total)
	at := r.Since
	if desc {
		at = r.Until
	}
	edge := s.minuteEdge(at, int64(2*float64(want)/share)+want, desc)
	if !edge.IsZero() && (!desc && !r.Until.IsZero() && !edge.Before(r.Until) || desc && !edge.After(r.Since) && !r.Since.IsZero()) {
		return time.Time{} // the span is the whole search
	}
	return edge
}

// counted is the total of a search over the whole case that the counts
// kept at ingest hold exactly (termCount).
func (s *Store) counted(r evidence.Request) (int64, bool) {
	if !r.Since.IsZero() || !r.Until.IsZero() {
		return 0, false
	}
	n, _, ok := s.termCount(r.Query)
	return n, ok
}

// termCount is what the counts kept at ingest say of q: the records it
// matches and the case's total, for every record or one value of a
// counted field (not dst_host: it is counted as ingested).
func (s *Store) termCount(q evidence.Query) (n, total int64, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if q.IsAll() {
		return s.counts.Total, s.counts.Total, true
	}
	if q.Op() != evidence.OpTerm || q.Folded() || q.Field() == "dst_host" {
		return 0, 0, false
	}
	vals, ok := s.counts.Fields[q.Field()]
	return vals[q.Value()], s.counts.Total, ok
}

func limitOr(n int) int {
	if n <= 0 {
		return 100
	}
	return n
}

// Page returns a timeline page, by the sort key: the events after (or
// before) a cursor or a time, one more than asked to tell whether there
// are more.
func (s *Store) Page(ctx context.Context, r evidence.PageRequest) (*evidence.Page, error) {
	limit := limitOr(r.Limit)
	parts, err := s.wheres(r.Query, r.Since, r.Until)
	if err != nil {
		return nil, err
	}
	if r.Query.Op() == evidence.OpNone {
		return evidence.NewPage(nil, false), nil
	}
	since, until := r.Since, r.Until
	var from string
	switch {
	case r.After.ID != "" && r.Backward:
		from = " " + fieldSort + ":<" + quote(sortKey(r.After.Time, r.After.ID)) + " _time:<=" + stamp(r.After.Time)
		until = r.After.Time.Add(1)
	case r.After.ID != "":
		from = " " + fieldSort + ":>" + quote(sortKey(r.After.Time, r.After.ID)) + " _time:>=" + stamp(r.After.Time)
		since = r.After.Time
	case r.From.IsZero():
	case r.Backward:
		from = " _time:<=" + stamp(r.From)
		until = r.From.Add(1)
	default:
		from = " _time:>=" + stamp(r.From)
		since = r.From
	}
	var evs []evidence.Event
	if len(parts) > 1 {
		var pages [][]evidence.Event
		for _, w := range parts {
			p, err := s.sorted(ctx, w+from, nil, 0, 0, int64(limit+1), r.Backward)
			if err != nil {
				return nil, err
			}
			pages = append(pages, p)
		}
		evs = merged(pages, limit+1, r.Backward)
	} else if evs, err = s.page(ctx, parts[0]+from, since, until, limit+1, r.Backward, r.Query.IsAll()); err != nil {
		return nil, err
	}
	more := len(evs) > limit
	if more {
		evs = evs[:limit]
	}
	if r.Backward {
		for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
			evs[i], evs[j] = evs[j], evs[i]
		}
	}
	return evidence.NewPage(evs, more), nil
}

// page reads the first n records of filter w in time order (newest
// first when desc), from the buckets that hold them. A page of every
// record (the detectors read a case so, 2,000 at a time) needs no
// histogram: the case's own counts per minute say where the page ends.
func (s *Store) page(ctx context.Context, w string, since, until time.Time, n int, desc, all bool) ([]evidence.Event, error) {
	if all {
		at := since
		if desc {
			at = until
		}
		if edge := s.minuteEdge(at, int64(n), desc); !edge.IsZero() {
			bound := " _time:<" + stamp(edge)
			if desc {
				bound = " _time:>=" + stamp(edge)
			}
			evs, err := s.sorted(ctx, w+bound, nil, 0, 0, int64(n), desc)
			if err != nil || len(evs) == n {
				return evs, err
			}
			// fewer than the counts said: ask the histogram
		}
	}
	var bs []bucket
	step := s.step(since, until)
	if step > 0 {
		var err error
		if bs, err = s.histogram(ctx, w, step); err != nil || len(bs) == 0 {
			return nil, err
		}
	}
	return s.sorted(ctx, w, bs, step, 0, int64(n), desc)
}
