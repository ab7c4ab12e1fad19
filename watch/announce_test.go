package watch

import (
	"context"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
)

// TestAnnouncedStatesReachTheStream: whatever way a finding changes
// between rounds (withdrawn and found again, back to a state announced
// before), a reader folding the findings stream ends each round with the
// findings the pass has, each created once; a watcher started again on
// the same bucket announces nothing the stream already holds.
func TestAnnouncedStatesReachTheStream(t *testing.T) {
	_, js := bus(t)
	ctx := context.Background()
	if err := EnsureFindingsStream(ctx, js, DefaultFindingsStream, 0); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 7, 21, 10, 45, 33, 0, time.UTC)
	finding := func(events ...string) detect.Finding {
		return detect.Finding{ID: "6e63cde347bab13c", Detector: "destination-expansion", Agent: "agent-22",
			Severity: detect.SeverityMedium, Start: at, End: at.Add(time.Duration(len(events)) * time.Minute),
			Events: events, Matches: len(events)}
	}
	a, b, c := finding("46d6", "abe8"), finding("46d6", "e187"), finding("46d6", "e187", "0567")
	rounds := []struct {
		name  string
		found []detect.Finding
	}{
		{"created", []detect.Finding{a}},
		{"withdrawn", nil},
		{"found again in another state", []detect.Finding{b}},
		{"grown", []detect.Finding{c}},
		{"back to the state announced two rounds before", []detect.Finding{b}},
		{"grown again", []detect.Finding{c}},
		{"withdrawn again", nil},
		{"found again in its first state", []detect.Finding{a}},
	}
	st, err := openState(ctx, js, "announce", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rounds {
		out, err := st.announce(r.found)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := send(ctx, js, out); err != nil {
			t.Fatal(err)
		}
		if err := st.record(ctx, out); err != nil {
			t.Fatal(err)
		}
		got, created := fold(published(t, js))
		if summary(got) != summary(r.found) {
			t.Errorf("%s: the stream folds to\n%s\nwant\n%s", r.name, summary(got), summary(r.found))
		}
		for id, n := range created {
			if n != 1 {
				t.Errorf("%s: %s created %d times", r.name, id, n)
			}
		}
	}
	again, err := openState(ctx, js, "announce", 0)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := again.announce(rounds[len(rounds)-1].found); err != nil || len(out) != 0 {
		t.Errorf("started again on the same bucket: %d messages (%v), want none", len(out), err)
	}
	if out, err := again.announce(nil); err != nil || len(out) != 1 || out[0].change != Withdrawn || out[0].seq != st.seq[a.ID]+1 {
		t.Errorf("started again, the finding gone: %+v (%v), want one withdrawal at %d", out, err, st.seq[a.ID]+1)
	}
}
