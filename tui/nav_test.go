package tui

import "testing"

// TestNavStackPopsItsOwnKind: each view takes the top-most way of its own
// kind, leaving the others; drop forgets a kind; the stack stays bounded.
func TestNavStackPopsItsOwnKind(t *testing.T) {
	var s navStack
	s = s.push(way{kind: wayEvent, pane: paneFindings})
	s = s.push(way{kind: wayAssist, pane: paneDetail})
	s = s.push(way{kind: wayEvent, pane: paneTimeline})
	s, w, ok := s.take(wayEvent)
	if !ok || w.pane != paneTimeline || len(s) != 2 {
		t.Fatalf("take: %+v %v, left %d", w, ok, len(s))
	}
	s, w, _ = s.take(wayEvent)
	if w.pane != paneFindings || len(s) != 1 || s[0].kind != wayAssist {
		t.Fatalf("second take: %+v, left %+v", w, s)
	}
	if _, _, ok := s.take(wayFilter); ok {
		t.Error("took a way of a kind never pushed")
	}
	if s = s.drop(wayAssist); len(s) != 0 {
		t.Errorf("drop left %+v", s)
	}
	for range maxWays + 10 {
		s = s.push(way{kind: wayEvent})
	}
	if len(s) != maxWays {
		t.Errorf("%d ways kept, want at most %d", len(s), maxWays)
	}
}
