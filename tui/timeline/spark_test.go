package timeline

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// TestSparkAsksForDenialsOnceTheyAppear: an ingest that is followed never
// ends, so its counts stay "live"; a denied series loaded before the first
// denial (all zero) must still be replaced when denials arrive.
func TestSparkAsksForDenialsOnceTheyAppear(t *testing.T) {
	com := common.New(context.Background(), common.DefaultStyles(lipgloss.NewRenderer(io.Discard), true), common.DefaultKeyMap(), nil).SetSize(80, 24)
	m := New(com, nil)
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	counts := func(deny int64) evidence.Counts {
		return evidence.Counts{Total: 100, First: t0, Last: t0.Add(time.Hour),
			Minutes: map[int64]int64{t0.Unix() / 60: 50, t0.Unix()/60 + 59: 50},
			Fields:  map[string]map[string]int64{"decision": {evidence.DecisionDeny: deny}}}
	}
	if cmd := m.SetCounts(counts(0), counts(0).MainSpan(), false, true); cmd != nil && m.spark.denied == nil {
		t.Fatal("with no denials the series should be known (all zero) without a query")
	}
	if m.SetCounts(counts(0), counts(0).MainSpan(), false, true); m.spark.deny != 0 {
		t.Fatalf("deny %d", m.spark.deny)
	}
	m.SetCounts(counts(7), counts(7).MainSpan(), false, true)
	if m.spark.deny != 7 {
		t.Errorf("the first denials did not ask for the series again (deny %d)", m.spark.deny)
	}
}
