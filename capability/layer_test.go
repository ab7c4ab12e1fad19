package capability

import (
	"testing"
	"time"
)

// TestLayerIsItsWorstCapability: a layer is as live as the worst of the
// capabilities it stops, whatever their order: one live capability among
// stopped ones leaves the layer live.
func TestLayerIsItsWorstCapability(t *testing.T) {
	kill := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	v := func(s State) Verdict { return Verdict{State: s, Line: string(s), StoppedAt: kill} }
	for _, c := range []struct {
		vs   []Verdict
		want State
	}{
		{[]Verdict{v(Live), v(Stopped)}, Live},
		{[]Verdict{v(Stopped), v(Live), v(Stopped)}, Live},
		{[]Verdict{v(CannotTell), v(Stopped)}, CannotTell},
		{[]Verdict{v(Live), v(CannotTell)}, Live},
		{[]Verdict{v(Stopped), v(Stopped)}, Stopped},
	} {
		if got := layerVerdict("network", c.vs, kill, nil).State; got != c.want {
			t.Errorf("layer of %v: %s, want %s", states(c.vs), got, c.want)
		}
	}
}

func states(vs []Verdict) []State {
	out := make([]State, len(vs))
	for i, v := range vs {
		out[i] = v.State
	}
	return out
}
