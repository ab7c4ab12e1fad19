package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence/vlogs/vlogstest"
)

// cordon archive slice takes some agents' evidence out of the archive as
// cordon pull takes it out of the stream: the same events of the agent,
// the same identity records, the same findings; and the slice is a case
// of its own, its index in its folder, nothing written to the archive.
func TestArchiveSliceIsThePullOfThoseAgents(t *testing.T) {
	addr := vlogstest.Start(t)
	url, _ := shipSample(t, "credential-theft")
	archive := filepath.Join(t.TempDir(), "archive")
	if code, out, errOut := cordon("archive", "--nats", url, "--incident", archive, "--store", addr, "--drain"); code != 0 {
		t.Fatalf("archive: exit %d\n%s%s", code, out, errOut)
	}
	archived := eventCount(t, archive)
	const agent, since = "agent-12", "2000-01-01T00:00:00Z"
	pulled := filepath.Join(t.TempDir(), "pulled")
	if code, out, errOut := cordon("pull", "--nats", url, "--agent", agent, "--since", since, "--incident", pulled); code != 0 {
		t.Fatalf("pull: exit %d\n%s%s", code, out, errOut)
	}
	sliced := filepath.Join(t.TempDir(), "sliced")
	code, out, errOut := cordon("archive", "slice", archive, "--agent", agent, "--since", since, "--incident", sliced)
	if code != 0 {
		t.Fatalf("archive slice: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "from archive "+archive) || !strings.Contains(out, agent+" ") {
		t.Errorf("the slice does not say what it read and kept:\n%s", out)
	}
	want, got := eventsOf(t, pulled, agent), eventsOf(t, sliced, agent)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("%d events of %s in the slice, %d in the pull; they differ", len(got), agent, len(want))
	}
	if a, b := eventCount(t, sliced), eventCount(t, pulled); a != b || a >= archived {
		t.Errorf("the slice holds %d events, the pull %d, the archive %d", a, b, archived)
	}
	if a, b := findingLines(t, sliced, []string{agent}), findingLines(t, pulled, []string{agent}); len(b) == 0 || !slices.Equal(a, b) {
		t.Errorf("findings of the slice:\n%s\nwant the pull's:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	if got := eventCount(t, archive); got != archived {
		t.Errorf("the archive holds %d events after the slice, %d before", got, archived)
	}

	// a slice of a span with none of the agent's events keeps none
	code, out, errOut = cordon("archive", "slice", archive, "--agent", agent, "--since", since, "--until", "2000-01-02T00:00:00Z", "--incident", filepath.Join(t.TempDir(), "none"))
	if code != 0 || !strings.Contains(out, agent+" 0") {
		t.Errorf("a slice of a span with none of the agent's events: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := cordon("archive", "slice", filepath.Join(t.TempDir(), "nothing"), "--agent", agent, "--since", since, "--incident", filepath.Join(t.TempDir(), "x")); code == 0 || !strings.Contains(errOut, "keeps no events on a store") {
		t.Errorf("a slice of a folder that is no archive: exit %d: %s", code, errOut)
	}
}
