package detect_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// A counting rule's open episode asked for at every event, as a following
// console asks, gives the finding of a pass asked only at the end: what an
// answer made of it is not given again once the episode has grown.
func TestCountingEpisodeAskedAlongTheWay(t *testing.T) {
	probing := builtinRules(t, "boundary-probing")
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

// The same for the rate rule, whose answer is kept while no event is
// counted: a burst asked for as it grows, and a quiet agent's peer that
// goes on acting, change its baseline and its finding as a pass asked
// only at the end finds them.
func TestRateAskedAlongTheWay(t *testing.T) {
	rate := builtinRules(t, "action-rate")
	t0 := time.Date(2026, 9, 3, 9, 0, 0, 0, time.UTC)
	var evs []evidence.Event
	call := func(agent string, at time.Time, i int) {
		evs = append(evs, evidence.Event{ID: fmt.Sprintf("%s%05d", agent, i), Time: at, Source: evidence.SourceLedger,
			Kind: evidence.KindToolCall, Agent: agent, Tool: "bash", CallID: fmt.Sprintf("%s-c%d", agent, i)})
	}
	// an hour of both agents at one call a minute, then a burst of a's
	for i := range 60 {
		call("a", t0.Add(time.Duration(i)*time.Minute), i)
		call("b", t0.Add(time.Duration(i)*time.Minute+time.Second), i)
	}
	for i := range 120 {
		call("a", t0.Add(time.Hour+time.Duration(i)*100*time.Millisecond), 100+i)
	}
	for i := range 30 {
		call("b", t0.Add(time.Hour+time.Minute+time.Duration(i)*time.Minute), 100+i)
	}
	slices.SortFunc(evs, func(x, y evidence.Event) int { return cmp.Or(x.Time.Compare(y.Time), strings.Compare(x.ID, y.ID)) })
	_, want := passOver(t, rate, nil, evs, 0)
	if len(want) == 0 {
		t.Fatal("no burst found: the day does not test the rate rule")
	}
	_, got := passOver(t, rate, nil, evs, 1)
	sameFindings(t, "asked at every event", got, want)
}
