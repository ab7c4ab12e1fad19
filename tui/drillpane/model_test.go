package drillpane

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/drill"
)

func TestCountdown(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {-time.Second, "0s"}, {45 * time.Second, "45s"}, {1500 * time.Millisecond, "2s"},
		{3*time.Minute + 10*time.Second, "3m10s"}, {time.Hour + time.Minute + 3*time.Second, "1h01m03s"},
	} {
		if got := countdown(c.d); got != c.want {
			t.Errorf("countdown(%s) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestNextTickMeetsTheNextInject: at ×600 the loop wakes for an inject
// rather than a whole wall second later.
func TestNextTickMeetsTheNextInject(t *testing.T) {
	s, err := drill.Load(filepath.Join("..", "..", "sample-incidents", "persistence-after-kill"))
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC)
	d, err := drill.Start(context.Background(), s, filepath.Join(t.TempDir(), "w"), func() time.Time { return wall })
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got := nextTick(d, time.Second); got != time.Second {
		t.Errorf("paused: %v", got)
	}
	_, due, _ := d.NextInject()
	d.Clock.Jump(due.Add(-time.Minute))
	d.Clock.SetSpeed(600)
	d.Clock.Resume()
	if got := nextTick(d, time.Second); got != 100*time.Millisecond {
		t.Errorf("a minute before an inject at ×600: wait %v, want 100ms", got)
	}
	d.Clock.SetSpeed(1)
	if got := nextTick(d, time.Second); got != time.Second {
		t.Errorf("at ×1: wait %v, want the usual second", got)
	}
}
