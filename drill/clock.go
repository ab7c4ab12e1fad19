package drill

import (
	"sync"
	"time"
)

// MaxSpeed is the fastest a facilitator can run scenario time: ten
// scenario minutes per wall second.
const MaxSpeed = 600

// Clock is scenario time: it runs at Speed scenario seconds per wall
// second from the moment it was last set, and can be paused, sped up and
// moved forward. It never runs past End. Safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	wall   func() time.Time
	at     time.Time // scenario time at wallAt
	wallAt time.Time
	speed  float64
	paused bool
	end    time.Time
}

// NewClock starts scenario time at start, paused, running at speed.
// wall is the real clock (time.Now outside tests).
func NewClock(start, end time.Time, speed float64, wall func() time.Time) *Clock {
	if wall == nil {
		wall = time.Now
	}
	return &Clock{wall: wall, at: start, wallAt: wall(), speed: clampSpeed(speed), paused: true, end: end}
}

func clampSpeed(s float64) float64 {
	switch {
	case s < 1:
		return 1
	case s > MaxSpeed:
		return MaxSpeed
	}
	return s
}

// Now is the current scenario time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *Clock) nowLocked() time.Time {
	t := c.at
	if !c.paused {
		t = t.Add(time.Duration(float64(c.wall().Sub(c.wallAt)) * c.speed))
	}
	if !c.end.IsZero() && t.After(c.end) {
		t = c.end
	}
	return t
}

// rebase fixes the scenario time reached so far before a change.
func (c *Clock) rebase() {
	c.at, c.wallAt = c.nowLocked(), c.wall()
}

// Pause stops scenario time; Resume lets it run again.
func (c *Clock) Pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rebase()
	c.paused = true
}

// Resume lets scenario time run.
func (c *Clock) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rebase()
	c.paused = false
}

// Paused reports whether scenario time stands still.
func (c *Clock) Paused() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paused
}

// SetSpeed changes how fast scenario time runs (1 to MaxSpeed).
func (c *Clock) SetSpeed(s float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rebase()
	c.speed = clampSpeed(s)
}

// Speed is scenario seconds per wall second.
func (c *Clock) Speed() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.speed
}

// Jump moves scenario time forward to t (never back: what the team has
// seen stays seen).
func (c *Clock) Jump(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rebase()
	if t.After(c.at) {
		c.at = t
	}
	if !c.end.IsZero() && c.at.After(c.end) {
		c.at = c.end
	}
}

// Ended reports whether scenario time reached its end.
func (c *Clock) Ended() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.end.IsZero() && !c.nowLocked().Before(c.end)
}
