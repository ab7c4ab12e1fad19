package indicators

import (
	"testing"
	"time"

	"github.com/cordon-ir/cordon/tui/common"
)

// TestWhenIsToTheSecond: the register shows first and last seen to the
// second in wall-clock time (milliseconds would only crowd its columns),
// keeps the clock's own form when it is relative or spans days, and a
// time never seen as "-".
func TestWhenIsToTheSecond(t *testing.T) {
	at := time.Date(2026, 7, 21, 10, 9, 3, 456e6, time.UTC)
	for _, c := range []struct {
		clock common.Clock
		t     time.Time
		want  string
	}{
		{common.Clock{}, at, "10:09:03"},
		{common.Clock{Days: true}, at, "07-21 10:09:03.456"},
		{common.Clock{Relative: true, Origin: at.Add(-time.Minute)}, at, "+00:01:00.000"},
		{common.Clock{}, time.Time{}, "-"},
	} {
		if got := (Model{clock: c.clock}).when(c.t); got != c.want {
			t.Errorf("clock %+v: %q, want %q", c.clock, got, c.want)
		}
	}
}
