package assist

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// readSelection returns the selected events in time order (at most about
// limit read for the query), how many the selection holds, and the
// requested ids the store lacks.
func readSelection(ctx context.Context, st evidence.Reader, sel Selection, limit int) ([]evidence.Event, int, []string, error) {
	byID := map[string]evidence.Event{}
	total := 0
	explicit := len(sel.IDs) > 0 || len(sel.Findings) > 0
	if sel.Whole || sel.All || !sel.Query.IsAll() || !sel.Since.IsZero() || !sel.Until.IsZero() || !explicit {
		n, evs, err := readQuery(ctx, st, sel, limit)
		if err != nil {
			return nil, 0, nil, err
		}
		total = n
		for _, ev := range evs {
			byID[ev.ID] = ev
		}
	}
	var missing []string
	want := append([]string(nil), sel.IDs...)
	for _, f := range sel.Findings {
		want = append(want, f.Events...)
	}
	for _, id := range want {
		if _, ok := byID[id]; ok {
			continue
		}
		ev, err := st.Get(ctx, id)
		if errors.Is(err, evidence.ErrNotFound) {
			missing = append(missing, id)
			continue
		}
		if err != nil {
			return nil, 0, nil, fmt.Errorf("evidence packet: %w", err)
		}
		byID[id] = ev
		total++
	}
	evs := make([]evidence.Event, 0, len(byID))
	for _, ev := range byID {
		evs = append(evs, ev)
	}
	sort.Slice(evs, func(i, j int) bool {
		if !evs[i].Time.Equal(evs[j].Time) {
			return evs[i].Time.Before(evs[j].Time)
		}
		return evs[i].ID < evs[j].ID
	})
	return evs, total, dedupe(missing), nil
}

// readPage is how many events one store page holds while reading.
const readPage = 500

// readQuery returns how many events match and up to about limit of them.
// When more match, the span is cut into slices and each slice gives its
// first events, so that a million events are read as a spread, not as
// their first minutes.
func readQuery(ctx context.Context, st evidence.Reader, sel Selection, limit int) (int, []evidence.Event, error) {
	hits, err := st.Search(ctx, evidence.Request{Query: sel.Query, Since: sel.Since, Until: sel.Until, Limit: 1})
	if err != nil {
		return 0, nil, fmt.Errorf("evidence packet: %w", err)
	}
	total := int(hits.Total)
	if total == 0 {
		return 0, nil, nil
	}
	req := evidence.PageRequest{Query: sel.Query, Since: sel.Since, Until: sel.Until, Limit: min(readPage, limit)}
	if total <= limit {
		var out []evidence.Event
		for len(out) < total {
			page, err := st.Page(ctx, req)
			if err != nil {
				return 0, nil, fmt.Errorf("evidence packet: %w", err)
			}
			out = append(out, page.Events...)
			if !page.More || len(page.Events) == 0 {
				break
			}
			req.After = page.Last
		}
		return total, out, nil
	}
	c := st.Counts()
	lo, hi := c.First, c.Last.Add(time.Nanosecond)
	if !sel.Since.IsZero() && sel.Since.After(lo) {
		lo = sel.Since
	}
	if !sel.Until.IsZero() && sel.Until.Before(hi) {
		hi = sel.Until
	}
	// The slices cut the main span: one record dated 9999-12-31 would
	// otherwise put the whole incident in the first slice. The few events
	// outside it get a slice of their own on each side.
	sp := c.MainSpan()
	var ranges [][2]time.Time
	if sp.Before > 0 && lo.Before(sp.First) {
		ranges = append(ranges, [2]time.Time{lo, minTime(hi, sp.First)})
		lo = maxTime(lo, sp.First)
	}
	if end := sp.Last.Add(time.Nanosecond); sp.After > 0 && hi.After(end) {
		ranges = append(ranges, [2]time.Time{maxTime(lo, end), hi})
		hi = minTime(hi, end)
	}
	ranges = append(slice(lo, hi, max(1, limit/100-len(ranges))), ranges...)
	var out []evidence.Event
	seen := map[string]bool{}
	for _, r := range ranges {
		page, err := st.Page(ctx, evidence.PageRequest{Query: sel.Query, Since: r[0], Until: r[1], Limit: 100})
		if err != nil {
			return 0, nil, fmt.Errorf("evidence packet: %w", err)
		}
		for _, ev := range page.Events {
			if !seen[ev.ID] {
				seen[ev.ID] = true
				out = append(out, ev)
			}
		}
	}
	return total, out, nil
}

// slice cuts [lo, hi) into n equal slices (none when it is empty). Past
// the 292 years a Duration holds, slices are whole seconds.
func slice(lo, hi time.Time, n int) [][2]time.Time {
	var out [][2]time.Time
	if d := hi.Sub(lo); d < 100*365*24*time.Hour {
		step := d / time.Duration(n)
		for i := 0; i < n && step > 0; i++ {
			from := lo.Add(time.Duration(i) * step)
			out = append(out, [2]time.Time{from, from.Add(step)})
		}
		return out
	}
	step := (hi.Unix() - lo.Unix()) / int64(n)
	for i := 0; i < n; i++ {
		from := time.Unix(lo.Unix()+int64(i)*step, 0).UTC()
		if i == 0 {
			from = lo
		}
		out = append(out, [2]time.Time{from, time.Unix(lo.Unix()+int64(i+1)*step, 0).UTC()})
	}
	out[n-1][1] = hi
	return out
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
