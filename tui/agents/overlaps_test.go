package agents

import (
	"testing"
	"time"
)

// TestSessionsOverlap: two sessions share an IP when their intervals
// meet; one that ended before the other began only handed it over, and
// an open session runs on.
func TestSessionsOverlap(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 7, 21, h, 0, 0, 0, time.UTC) }
	s := func(start, end int) session {
		out := session{Start: at(start)}
		if end > 0 {
			out.End = at(end)
		}
		return out
	}
	for _, c := range []struct {
		a, b session
		want bool
	}{
		{s(10, 12), s(11, 13), true},
		{s(10, 11), s(12, 13), false}, // handed over
		{s(12, 13), s(10, 11), false}, // the same, the other way round
		{s(10, 0), s(14, 15), true},   // still open
		{s(14, 15), s(10, 0), true},
		{s(10, 11), s(11, 12), false}, // one ends as the other starts
	} {
		if got := overlaps(c.a, c.b); got != c.want {
			t.Errorf("%v–%v and %v–%v: overlap %v, want %v", c.a.Start.Hour(), c.a.End.Hour(), c.b.Start.Hour(), c.b.End.Hour(), got, c.want)
		}
	}
}
