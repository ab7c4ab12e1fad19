package evidence

import (
	"context"
	"testing"
	"time"
)

func TestDensity(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 0, 30, 0, time.UTC)
	c := Counts{Total: 6, First: t0, Last: t0.Add(9 * time.Minute),
		Minutes: map[int64]int64{t0.Unix() / 60: 3, t0.Unix()/60 + 5: 2, t0.Unix()/60 + 9: 1}}
	b, d := Density(c, 3)
	if len(d) != 3 || d[0] != 3 || d[1] != 2 || d[2] != 1 {
		t.Errorf("density %v", d)
	}
	if b.Index(t0.Add(-time.Hour)) != 0 || b.Index(t0.Add(time.Hour)) != 2 {
		t.Error("Index does not clamp")
	}
}

func TestDeniedSeries(t *testing.T) {
	st := openFixture(t)
	c := st.Counts()
	b, _ := Density(c, 10)
	s, err := DeniedSeries(context.Background(), st, b)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, n := range s {
		sum += n
	}
	if want := c.Fields["decision"][DecisionDeny]; sum != want || want == 0 {
		t.Errorf("denied series %v sums to %d, want %d", s, sum, want)
	}
}
