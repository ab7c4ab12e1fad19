package evidence_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/evidence/storetest"
)

// contractEvents: a sample incident, attributed, with events sharing a
// timestamp so that pages must break ties by id.
func contractEvents(t *testing.T) []evidence.Event {
	evs := loadSample(t, "egress-probe-exfil")
	attribution.AttributeAll(evs)
	t0 := evs[len(evs)/2].Time
	for i := 0; i < 5; i++ {
		evs = append(evs, evidence.Event{ID: "tie-" + string(rune('e'-i)), Time: t0, Source: evidence.SourceLedger,
			Kind: evidence.KindToolCall, Agent: "agent-7", Tool: "bash", Cmdline: "curl https://httpbin.org"})
	}
	evs = append(evs, evidence.Event{ID: "late", Time: t0.Add(time.Hour), Source: evidence.SourceProxy, Kind: evidence.KindNetRequest, DstHost: "HTTPBIN.ORG"})
	return evs
}

func TestBleveStoreKeepsTheContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) evidence.Store {
		st, err := evidence.Open(filepath.Join(t.TempDir(), "index"), evidence.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}, contractEvents(t))
}

func TestMemStoreKeepsTheContract(t *testing.T) {
	storetest.Run(t, func(*testing.T) evidence.Store { return evidence.NewMemStore() }, contractEvents(t))
}
