package vlogs

import (
	"context"
	"sort"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// queryBudget is the longest filter one query carries: VictoriaLogs
// refuses a query longer than its -search.maxQueryLen, 16 KiB by default,
// and the pipes after the filter need some of it.
const queryBudget = 14 << 10

// wheres is the filter of a read as one query, or, when that would be too
// long because of a long set of ids (a finding's evidence, say), as
// several, one per list of ids that fits: their matches are disjoint and
// together are the read's. An id set the store cannot take out of the
// query (under an OR or a NOT) stays whole, and the server's refusal
// names its limit.
func (s *Store) wheres(q evidence.Query, since, until time.Time) ([]string, error) {
	w, err := s.where(q, since, until)
	if err != nil || len(w) <= queryBudget {
		return []string{w}, err
	}
	ids, rest, ok := splitIDs(q)
	if !ok {
		return []string{w}, nil
	}
	base, err := s.where(rest, since, until)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, list := range lists(distinct(ids)) {
		out = append(out, base+" id:in("+list+")")
	}
	return out, nil
}

// splitIDs takes the longest set of ids out of q, when q is one or is a
// conjunction holding one: q is then ids AND rest.
func splitIDs(q evidence.Query) (ids []string, rest evidence.Query, ok bool) {
	switch q.Op() {
	case evidence.OpIDs:
		return q.Values(), evidence.All(), true
	case evidence.OpAnd:
		best := -1
		for i, sub := range q.Subs() {
			if sub.Op() == evidence.OpIDs && (best < 0 || len(sub.Values()) > len(q.Subs()[best].Values())) {
				best = i
			}
		}
		if best < 0 {
			return nil, q, false
		}
		var others []evidence.Query
		for i, sub := range q.Subs() {
			if i != best {
				others = append(others, sub)
			}
		}
		return q.Subs()[best].Values(), evidence.And(others...), true
	}
	return nil, q, false
}

func distinct(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// merged is the first n of the parts' events in the timeline's order
// (newest first when desc), each part's already in that order.
func merged(parts [][]evidence.Event, n int, desc bool) []evidence.Event {
	var all []evidence.Event
	for _, p := range parts {
		all = append(all, p...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := sortKey(all[i].Time, all[i].ID), sortKey(all[j].Time, all[j].ID)
		if desc {
			return a > b
		}
		return a < b
	})
	return all[:min(n, len(all))]
}

// searchParts is Search over several filters: each part's total, and the
// first offset+limit of each, merged.
func (s *Store) searchParts(ctx context.Context, parts []string, offset, limit int64, desc bool) (*evidence.Hits, error) {
	h := &evidence.Hits{}
	var pages [][]evidence.Event
	for _, w := range parts {
		n, err := s.count(ctx, w)
		if err != nil {
			return nil, err
		}
		h.Total += uint64(n)
		if n == 0 {
			continue
		}
		evs, err := s.sorted(ctx, w, nil, 0, 0, offset+limit, desc)
		if err != nil {
			return nil, err
		}
		pages = append(pages, evs)
	}
	all := merged(pages, int(offset+limit), desc)
	if int64(len(all)) > offset {
		h.Events = all[offset:]
	}
	return h, nil
}
