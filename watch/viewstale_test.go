package watch

import (
	"context"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
)

// A watcher says when its verdicts are answered from a copy of the pass
// that lacks some of what it took: after a publication whose copy waited
// for the gap between copies, until the copy is made; and while the pass
// took events the copy has not.
func TestViewStaleUntilTheCopyIsMade(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	w := &Watcher{verdicts: newVerdicts(VerdictConfig{}, "test", nil)}
	if w.viewStale() {
		t.Fatal("no pass yet, and stale")
	}
	w.pass, err = (&detect.Engine{Rules: rules, Attribute: true}).Start(context.Background(), detect.NewMemSource(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !w.viewStale() {
		t.Fatal("no copy made yet, and not stale")
	}
	now := time.Now()
	w.refreshView(now)
	if w.viewStale() {
		t.Fatal("the copy just made is stale")
	}
	evs := sampleEvents(t, "credential-theft")
	if err := w.pass.Add(&evs[0]); err != nil {
		t.Fatal(err)
	}
	if !w.viewStale() {
		t.Fatal("the pass took an event the copy lacks, and not stale")
	}
	// a publication's copy, too soon after the last: left for later
	w.verdicts.viewGap = time.Hour
	w.viewDirty = true
	w.refreshView(now.Add(time.Millisecond))
	if !w.viewStale() {
		t.Fatal("the copy waits for its gap, and not stale")
	}
	w.verdicts.viewGap = 0
	w.refreshView(now.Add(2 * time.Millisecond))
	if w.viewStale() {
		t.Fatal("the copy is made, and stale")
	}
	// a publication marks the copy to be made again (a pass rebuilt may
	// hold as many events as the copy, and others)
	w.viewDirty = true
	if !w.viewStale() {
		t.Fatal("a copy waiting to be made, and not stale")
	}
}
