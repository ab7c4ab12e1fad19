package detect_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// A counting rule's open episode asked for at every event, as a following
// console asks, gives the finding of a pass asked only at the end: what an
// answer made of it is not given again once the episode has grown.
func TestCountingEpisodeAskedAlongTheWay(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var probing []detect.Rule
	for _, r := range rules {
		if r.ID == "boundary-probing" {
			probing = append(probing, r)
		}
	}
	if len(probing) != 1 {
		t.Fatal("no boundary-probing rule")
	}
	t0 := time.Date(2026, 9, 3, 9, 0, 0, 0, time.UTC)
	var evs []evidence.Event
	for i := range 12 {
		evs = append(evs, evidence.Event{ID: fmt.Sprintf("p%02d", i), Time: t0.Add(time.Duration(i) * 10 * time.Second), Source: evidence.SourceProxy,
			Format: "squid", Kind: evidence.KindNetRequest, Agent: "a", AttributedVia: "src_ip", SrcIP: "10.0.0.5",
			DstHost: fmt.Sprintf("h%d.example.com", i), Decision: evidence.DecisionDeny, Status: "403"})
	}
	_, want := passOver(t, probing, nil, evs, 0)
	if len(want) != 1 || len(want[0].Events) != 12 {
		t.Fatalf("asked at the end: %d findings (%v): the day does not open one episode of twelve denials", len(want), want)
	}
	_, got := passOver(t, probing, nil, evs, 1)
	sameFindings(t, "asked at every event", got, want)
}
