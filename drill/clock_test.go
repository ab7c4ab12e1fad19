package drill

import (
	"testing"
	"time"
)

// TestClockNeverRunsPastEnd: scenario time runs at its speed from the
// start and stops at the end, however long the wall clock runs.
func TestClockNeverRunsPastEnd(t *testing.T) {
	start := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	end := start.Add(time.Hour)
	wall := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewClock(start, end, 60, func() time.Time { return wall })
	c.Resume()
	wall = wall.Add(30 * time.Second)
	if got := c.Now(); !got.Equal(start.Add(30 * time.Minute)) {
		t.Errorf("30 wall seconds at ×60: %v, want %v", got, start.Add(30*time.Minute))
	}
	wall = wall.Add(10 * time.Minute)
	if got := c.Now(); !got.Equal(end) {
		t.Errorf("long after the end: %v, want the end %v", got, end)
	}
}
