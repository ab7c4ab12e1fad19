package detect_test

import (
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// summariesLeavingOutNohup is agent a running nohup and then writing a
// summary that does not say so, n times five minutes apart, then once more
// after a pause of two hours.
func summariesLeavingOutNohup(n int) []evidence.Event {
	evs := []evidence.Event{session("a", "10.0.0.1", "px-a")}
	at := func(i int) float64 { return float64(60 + i*300) }
	for i := range n + 1 {
		sec := at(i)
		if i == n {
			sec += 2 * 3600
		}
		run := mk(sec, "a", evidence.KindProcExec, "cmdline", "nohup ./watch.sh")
		sum := mk(sec+30, "a", evidence.KindSummary)
		sum.Message = "summary: ran the tests"
		evs = append(evs, run, sum)
	}
	return evs
}

// Matches of one rule about one agent within the rule's gap are one
// finding; the id is that of its first event, the same when the episode
// has grown, and a match past the gap starts another episode.
func TestEpisodesGrowWithTheSameID(t *testing.T) {
	whole := runBuiltin(t, "intent-mismatch", summariesLeavingOutNohup(6))
	if len(whole) != 2 {
		t.Fatalf("want 2 episodes (six summaries, then one after a pause), got %d", len(whole))
	}
	detect.Sort(whole)
	first := whole[0]
	if !first.Start.Before(whole[1].Start) {
		first = whole[1]
	}
	if first.Matches != 6 || len(first.Events) != 12 {
		t.Errorf("first episode: %d matches, %d events; want 6 and 12", first.Matches, len(first.Events))
	}
	early := runBuiltin(t, "intent-mismatch", summariesLeavingOutNohup(6)[:5])
	if len(early) != 1 || early[0].Matches != 2 {
		t.Fatalf("the first two summaries: want one episode of two matches, got %+v", early)
	}
	if early[0].ID != first.ID {
		t.Errorf("the episode's id changed as it grew: %s, then %s", early[0].ID, first.ID)
	}
}

func TestEpisodesMergeWithinGap(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	m := func(det, agent string, from, to int, ids ...string) detect.Finding {
		return detect.Finding{Detector: det, Agent: agent, Severity: "medium", Matches: 1,
			Start: t0.Add(time.Duration(from) * time.Minute), End: t0.Add(time.Duration(to) * time.Minute),
			Events: ids, Values: ids[:1], Explanation: "x"}
	}
	gap := func(string) time.Duration { return 10 * time.Minute }
	for _, tc := range []struct {
		name    string
		in      []detect.Finding
		matches []int
	}{
		{"touching", []detect.Finding{m("r", "a", 0, 5, "1"), m("r", "a", 15, 20, "2")}, []int{2}},
		{"past the gap", []detect.Finding{m("r", "a", 0, 5, "1"), m("r", "a", 16, 20, "2")}, []int{1, 1}},
		{"other agent", []detect.Finding{m("r", "a", 0, 5, "1"), m("r", "b", 1, 5, "2")}, []int{1, 1}},
		{"other rule", []detect.Finding{m("r", "a", 0, 5, "1"), m("s", "a", 1, 5, "2")}, []int{1, 1}},
		{"chain", []detect.Finding{m("r", "a", 30, 35, "3"), m("r", "a", 0, 5, "1"), m("r", "a", 14, 20, "2", "1")}, []int{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := detect.Episodes(tc.in, gap)
			if len(out) != len(tc.matches) {
				t.Fatalf("%d episodes, want %d", len(out), len(tc.matches))
			}
			for i, f := range out {
				if f.Matches != tc.matches[i] {
					t.Errorf("episode %d: %d matches, want %d", i, f.Matches, tc.matches[i])
				}
			}
			if tc.name == "chain" {
				f := out[0]
				if f.Events[0] != "1" || len(f.Events) != 3 || !f.End.Equal(t0.Add(35*time.Minute)) || len(f.Values) != 3 {
					t.Errorf("chain: events %v, end %s, values %v", f.Events, f.End, f.Values)
				}
				if f.Explanation != "x (3 times, until 10:35:00)" {
					t.Errorf("explanation %q", f.Explanation)
				}
			}
		})
	}
}
