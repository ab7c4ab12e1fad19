package vlogs

import (
	"testing"
	"time"
)

// The window of a sorted read holds the records it asks for and says how
// many of the window's own come before them, both ways.
func TestWindowHoldsThePage(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	step := time.Minute
	bs := []bucket{{t0, 5}, {t0.Add(2 * step), 3}, {t0.Add(3 * step), 0}, {t0.Add(7 * step), 10}}
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * step) }
	for _, c := range []struct {
		name       string
		skip, want int64
		desc       bool
		from, to   time.Time
		before     int64
	}{
		{"first page in the first bucket", 0, 2, false, at(0), at(1), 0},
		{"a page across buckets", 4, 3, false, at(0), at(3), 4},
		{"skipping whole buckets", 6, 2, false, at(2), at(3), 1},
		{"the end is open when it runs out", 9, 100, false, at(7), time.Time{}, 1},
		{"newest first", 0, 3, true, at(7), at(8), 0},
		{"newest first across buckets", 9, 3, true, at(2), at(8), 9},
		{"newest first, the start open", 12, 100, true, time.Time{}, at(3), 2},
	} {
		from, to, before := window(bs, step, c.skip, c.want, c.desc)
		if !from.Equal(c.from) || !to.Equal(c.to) || before != c.before {
			t.Errorf("%s: [%v, %v) after %d, want [%v, %v) after %d", c.name, from, to, before, c.from, c.to, c.before)
		}
	}
}
