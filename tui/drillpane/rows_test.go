package drillpane

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/tui/common"
)

// TestRowsIsTheBarsHeight: the root keeps Rows(w) lines for the bar, so
// they must be as many as Bar(w) draws: one for the clock and every line
// of the inject shown, wrapped at w, or of the hint.
func TestRowsIsTheBarsHeight(t *testing.T) {
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
	r := lipgloss.NewRenderer(io.Discard)
	com := common.New(context.Background(), common.DefaultStyles(r, true), common.DefaultKeyMap(), nil)
	m := New(com, Config{Drill: d, Facilitator: true})
	long := drill.Inject{Text: strings.Repeat("the on-call says the watchdog is back ", 8)}
	for _, notice := range []*drill.Inject{nil, {Text: "short"}, &long} {
		m.notice = notice
		for _, w := range []int{40, 80, 120} {
			if rows, bar := m.Rows(w), len(m.Bar(w)); rows != bar || rows < 2 {
				t.Errorf("width %d, notice %v: Rows %d, the bar draws %d lines", w, notice != nil, rows, bar)
			}
		}
	}
}
