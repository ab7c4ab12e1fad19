package detect_test

import (
	"context"
	"github.com/cordon-ir/cordon/capability"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// A proxy whose clock runs 30 s ahead of the ledger's: the offset is found
// from the connections both record, and the proxy's uses of a credential
// are judged on the ledger's clock.
func TestClockSkewIsEstimatedAndApplied(t *testing.T) {
	t0 := time.Date(2026, 8, 11, 9, 0, 0, 0, time.UTC)
	skew := 30 * time.Second
	evs := []evidence.Event{{ID: "s", Time: t0, Source: evidence.SourceLedger, Kind: evidence.KindSessionStart, Agent: "a",
		Session: "s-1", SrcIP: "10.0.0.5", Credential: []string{"px-1"}}}
	for i := range 8 {
		at := t0.Add(time.Duration(i+1) * 3 * time.Minute)
		host := []string{"pypi.org", "github.com"}[i%2]
		evs = append(evs,
			evidence.Event{ID: "l" + string(rune('a'+i)), Time: at, Source: evidence.SourceLedger, Kind: evidence.KindNetRequest, Agent: "a", DstHost: host, BytesOut: 100},
			evidence.Event{ID: "p" + string(rune('a'+i)), Time: at.Add(skew + time.Duration(i)*40*time.Millisecond), Source: evidence.SourceProxy, Kind: evidence.KindNetRequest,
				SrcIP: "10.0.0.5", User: "px-1", DstHost: host, Decision: evidence.DecisionAllow, Status: "200"})
	}
	attribution.AttributeAll(evs)
	r, err := (&detect.Engine{}).Scan(context.Background(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skews) != 1 || r.Skews[0].Source != evidence.SourceProxy || !r.Skews[0].Applied ||
		r.Skews[0].Offset < 29*time.Second || r.Skews[0].Offset > 31*time.Second || r.Skews[0].Pairs != 8 {
		t.Fatalf("skews %+v", r.Skews)
	}
	for _, c := range r.Capabilities.For("a") {
		if c.Kind == capability.Credential && c.Value == "px-1" {
			if len(c.Uses) != 8 || c.Uses[0].Time.Sub(t0.Add(3*time.Minute)).Abs() > time.Second {
				t.Errorf("uses not on the ledger's clock: %+v", c.Uses)
			}
			return
		}
	}
	t.Error("no px-1 capability")
}
