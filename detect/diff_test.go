package detect_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/bench/benchtest"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
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

// Digests remembers each finding's events digest from the answer before,
// by the events slice: a follow's answers share the events of an episode
// that did not grow. Over a pass viewed every few hundred events, as a
// follow's rounds view it, every answer's Marks are those made from
// scratch: a grown episode is hashed again, one unchanged is not wrong.
func TestDigestsMarkEachAnswerAsFromScratch(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	evs := benchtest.GeneratedEvents(t, 20000)
	attribution.AttributeAll(evs)
	slices.SortStableFunc(evs, func(a, b evidence.Event) int { return detect.Compare(&a, &b) })
	eng := detect.Engine{Rules: rules}
	p, err := eng.Start(context.Background(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	var d detect.Digests
	answers, shared := 0, 0
	var last map[string]detect.Mark
	for i := range evs {
		if err := p.Add(&evs[i]); err != nil {
			t.Fatal(err)
		}
		if i%500 != 499 && i != len(evs)-1 {
			continue
		}
		found := p.View().Result.Findings
		got, want := d.Marks(found), detect.Marks(found)
		if !maps.Equal(got, want) {
			t.Fatalf("answer %d (%d events): the Marks differ from those made from scratch", answers+1, i+1)
		}
		for id, m := range got {
			if last[id] == m {
				shared++
			}
		}
		last = got
		answers++
	}
	if shared == 0 {
		t.Error("no finding was the same from one answer to the next: nothing here shows a remembered digest right")
	}
	t.Logf("%d answers, %d Marks the same as the answer before's", answers, shared)
}

// A slice whose first element is the same but which is longer (an
// episode grown in place of a larger array) is another slice.
func TestDigestsTellAGrownSliceFromItsStart(t *testing.T) {
	ids := []string{"e1", "e2", "e3"}
	f := func(evs []string) []detect.Finding { return []detect.Finding{{ID: "f", Events: evs}} }
	var d detect.Digests
	first := d.Marks(f(ids[:2]))["f"]
	grown := d.Marks(f(ids[:3]))["f"]
	if grown != detect.Marks(f(ids[:3]))["f"] || first.Same(grown) {
		t.Errorf("a grown episode kept the digest of its start: %+v then %+v", first, grown)
	}
}
