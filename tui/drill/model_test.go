package drill

import (
	"testing"
	"time"
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
