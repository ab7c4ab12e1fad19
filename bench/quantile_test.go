package bench

import (
	"testing"
	"time"
)

// TestQuantileNearestRank: the median and the 95th percentile are the
// nearest-rank values of the sorted durations, not the next one up.
func TestQuantileNearestRank(t *testing.T) {
	d := make([]time.Duration, 20)
	for i := range d {
		d[i] = time.Duration(i+1) * time.Millisecond // 1..20 ms
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 10 * time.Millisecond}, {0.95, 19 * time.Millisecond}, {1, 20 * time.Millisecond}, {0, time.Millisecond}} {
		if got := quantile(d, c.q); got != c.want {
			t.Errorf("quantile %.2f of 1..20 ms: %v, want %v", c.q, got, c.want)
		}
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("quantile of nothing is not 0")
	}
}
