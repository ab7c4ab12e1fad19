package tui

import (
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/timeline"
)

// wayKind says what going back through a way restores.
type wayKind int

const (
	// wayEvent leaves the event pane for the pane the event was opened
	// from.
	wayEvent wayKind = iota
	// wayAssist leaves the assistant's task picker for the pane it was
	// asked from.
	wayAssist
	// wayRelated leaves a related group shown in the timeline: back to
	// the event it was opened from, the timeline as it was before.
	wayRelated
	// wayFilter clears the evidence the timeline shows for another pane
	// (a finding, a check, a claim) and returns to that pane.
	wayFilter
)

// way is one step back: where esc goes from a view the console pushed.
type way struct {
	kind wayKind
	pane pane // where focus returns (wayEvent, wayAssist, wayFilter)
	// query is the related group's query as the timeline's search shows
	// it, filter the evidence filter set for pane: the way holds only
	// while the timeline still shows it.
	query  string
	filter evidence.Query
	ev     evidence.Event // wayRelated: the event the group was opened from
	place  timeline.Place // wayRelated: what the timeline showed before
}

// maxWays bounds the stack: ways left behind (a view left by tab rather
// than esc) are forgotten oldest first.
const maxWays = 64

// navStack is the console's one navigation stack: opening an event, a
// related group, a finding's evidence or the assistant pushes a way back,
// and esc pops it (event → related group → back). Each view pops the
// top-most way of its own kind: the event pane's esc is not taken by an
// assistant opened on top of it and left with tab.
type navStack []way

// push adds a way back on top.
func (s navStack) push(w way) navStack {
	if len(s) >= maxWays {
		s = s[1:]
	}
	return append(s, w)
}

// find returns the index of the top-most way of kind k, or -1.
func (s navStack) find(k wayKind) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i].kind == k {
			return i
		}
	}
	return -1
}

// take removes and returns the top-most way of kind k.
func (s navStack) take(k wayKind) (navStack, way, bool) {
	i := s.find(k)
	if i < 0 {
		return s, way{}, false
	}
	w := s[i]
	return append(s[:i:i], s[i+1:]...), w, true
}

// drop forgets every way of kind k (the view it leads back from is gone).
func (s navStack) drop(k wayKind) navStack {
	out := s[:0:0]
	for _, w := range s {
		if w.kind != k {
			out = append(out, w)
		}
	}
	return out
}
