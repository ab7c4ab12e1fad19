package assist

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// TestSpreadIsNotSqueezedByAFarRecord: a read of more events than it
// keeps is spread over the incident; one record dated 9999-12-31 put the
// whole incident in the first slice, so the packet held its first
// minutes only. The far record is read too.
func TestSpreadIsNotSqueezedByAFarRecord(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	var evs []evidence.Event
	for i := 0; i < 3000; i++ {
		evs = append(evs, evidence.Event{ID: fmt.Sprintf("e%04d", i), Time: t0.Add(time.Duration(i) * time.Second),
			Source: evidence.SourceLedger, Kind: evidence.KindToolCall, Agent: "a", Message: "x"})
	}
	evs = append(evs, evidence.Event{ID: "far", Time: time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		Source: evidence.SourceLedger, Kind: evidence.KindToolCall, Agent: "a", Message: "x"})
	st := openStore(t, evs)
	total, got, err := readQuery(context.Background(), st, Selection{Query: evidence.MustParse("agent:a")}, 500)
	if err != nil {
		t.Fatal(err)
	}
	if total != len(evs) {
		t.Fatalf("total %d, want %d", total, len(evs))
	}
	var late, far bool
	for _, ev := range got {
		late = late || ev.Time.After(t0.Add(40*time.Minute))
		far = far || ev.ID == "far"
	}
	if !late || !far {
		t.Errorf("%d events read: some from the incident's last minutes %v, the far record %v", len(got), late, far)
	}
}
