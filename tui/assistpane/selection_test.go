package assistpane

import (
	"slices"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// TestFromEventSendsEachEventOnce: an event linked to the selected one in
// several ways (same call, same session) is sent once, and the label
// counts it once.
func TestFromEventSendsEachEventOnce(t *testing.T) {
	ev := evidence.Event{ID: "e1"}
	related := []attribution.Related{
		{Events: []evidence.Event{{ID: "e2"}, {ID: "e3"}}},
		{Events: []evidence.Event{{ID: "e3"}, {ID: "e1"}, {ID: "e4"}}},
	}
	s := FromEvent(ev, related)
	if want := []string{"e1", "e2", "e3", "e4"}; !slices.Equal(s.Sel.IDs, want) {
		t.Errorf("ids %v, want %v", s.Sel.IDs, want)
	}
	if s.Label != "event e1 and 3 related events" {
		t.Errorf("label %q", s.Label)
	}
}
