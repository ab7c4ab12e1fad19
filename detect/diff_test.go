package detect_test

import (
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
)

// A round's change is read by finding id: new ids are created, the same
// id with a grown episode or another severity is updated, an id gone is
// withdrawn, and an unchanged one is none of them; DiffMarks, given the
// Marks made beforehand, says what Diff says.
func TestDiffFindingsByID(t *testing.T) {
	t0 := time.Date(2026, 9, 2, 14, 0, 0, 0, time.UTC)
	f := func(id string, end int, sev string, evs ...string) detect.Finding {
		return detect.Finding{ID: id, Severity: sev, End: t0.Add(time.Duration(end) * time.Minute), Events: evs, Matches: len(evs)}
	}
	before := []detect.Finding{f("same", 1, "high", "e1"), f("grows", 2, "high", "e2"), f("worse", 3, "medium", "e3"), f("gone", 4, "low", "e4")}
	after := []detect.Finding{f("same", 1, "high", "e1"), f("grows", 5, "high", "e2", "e5"), f("worse", 3, "high", "e3"), f("new", 6, "critical", "e6")}
	for name, diff := range map[string]func(b, a []detect.Finding) detect.Change{
		"Diff": func(b, a []detect.Finding) detect.Change { return detect.Diff(detect.Marks(b), a) },
		"DiffMarks": func(b, a []detect.Finding) detect.Change {
			return detect.DiffMarks(detect.Marks(b), a, detect.Marks(a))
		},
	} {
		ch := diff(before, after)
		if len(ch.Created) != 1 || ch.Created[0] != "new" || len(ch.Withdrawn) != 1 || ch.Withdrawn[0] != "gone" ||
			len(ch.Updated) != 2 || ch.Updated[0] != "grows" || ch.Updated[1] != "worse" {
			t.Errorf("%s: %+v", name, ch)
		}
		if ch := diff(after, after); len(ch.Created)+len(ch.Updated)+len(ch.Withdrawn) != 0 {
			t.Errorf("%s: a round that changed nothing: %+v", name, ch)
		}
	}
}
