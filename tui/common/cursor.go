package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// MoveCursor applies the list keys (j/k, arrows, pgup/pgdn, g/G) and the
// mouse wheel to a cursor over n rows of which page are visible. It returns
// the new cursor, clamped, and whether msg moved it: every list pane moves
// the same way.
func (k *KeyMap) MoveCursor(msg tea.Msg, cur, n, page int) (int, bool) {
	switch msg := msg.(type) {
	case tea.MouseMsg:
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			cur -= 3
		case tea.MouseButtonWheelDown:
			cur += 3
		default:
			return cur, false
		}
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, k.Down):
			cur++
		case key.Matches(msg, k.Up):
			cur--
		case key.Matches(msg, k.PageDown):
			cur += page - 1
		case key.Matches(msg, k.PageUp):
			cur -= page - 1
		case key.Matches(msg, k.Top):
			cur = 0
		case key.Matches(msg, k.Bottom):
			cur = n - 1
		default:
			return cur, false
		}
	default:
		return cur, false
	}
	return max(0, min(cur, n-1)), true
}

// Scroll keeps a cursor over n rows inside a window of visible rows that
// starts at top, and returns both, clamped.
func Scroll(cur, top, n, visible int) (int, int) {
	cur = min(max(cur, 0), max(n-1, 0))
	if cur < top {
		top = cur
	}
	if cur >= top+visible {
		top = cur - visible + 1
	}
	return cur, max(min(top, n-visible), 0)
}
