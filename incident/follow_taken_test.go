package incident

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/ingest"
)

// A round adds the events the ingest's store took, handed over, without
// reading them back from the index. When one of them holds text that is
// not UTF-8 (which the index rewrites), the round reads its events from
// the index. Either way no replay is needed, and the answer is the
// one-shot answer.
func TestFollowTakesTheIngestsHand(t *testing.T) {
	lines := readLines(t, filepath.Join("..", "sample-incidents", "credential-theft", "ledger.jsonl"))
	half, three := len(lines)/2, len(lines)*3/4
	dir := t.TempDir()
	log := filepath.Join(dir, "ledger.jsonl")
	writeLines(t, log, lines[:half])
	w, ctx, cancel, opt, acc := followed(t)
	defer w.Close()
	defer cancel()
	rounds := 0
	err := w.Follow(ctx, []string{dir}, opt, time.Millisecond, func([]ingest.FileResult) {
		switch rounds++; rounds {
		case 1:
			writeLines(t, log, lines[half:three])
		case 2:
			sameAsOneShot(t, w, "after the ingest's hand")
			rest := slices.Clone(lines[three:])
			for i, l := range rest {
				if bad := strings.Replace(l, `"tool":"`, "\"tool\":\"\xff", 1); bad != l {
					rest[i] = bad
					break
				}
			}
			if slices.Equal(rest, lines[three:]) {
				t.Fatal("no line of the rest names a tool")
			}
			writeLines(t, log, rest)
		case 3:
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	got := *acc
	if len(got) < 3 {
		t.Fatalf("%d rounds detected, want 3: %+v", len(got), got)
	}
	if r := got[1]; r.Replayed != "" || r.Read != "the ingest" || r.Added != three-half {
		t.Errorf("round 2: %+v, want the %d appended events from the ingest's hand", r, three-half)
	}
	if r := got[2]; r.Replayed != "" || !strings.HasPrefix(r.Read, "the index (event ") || !strings.HasSuffix(r.Read, " holds text that is not UTF-8)") || r.Added != len(lines)-three {
		t.Errorf("round 3: %+v, want the %d appended events read from the index, as one is not UTF-8", r, len(lines)-three)
	}
	sameAsOneShot(t, w, "after a line that is not UTF-8")
	if n := w.DetectorRuns(); n != 1 {
		t.Errorf("%d passes over the evidence, want 1 (as the follow began)", n)
	}
	if !strings.HasPrefix(got[0].Replayed, "the follow began") {
		t.Errorf("round 1: %+v", got[0])
	}
}
