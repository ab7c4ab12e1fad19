package evidence_test

import (
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/evidence/storetest"
)

// contractEvents: a sample incident, attributed, with events sharing a
// timestamp so that pages must break ties by id.
func contractEvents(t *testing.T) []evidence.Event {
	evs := loadSample(t, "egress-probe-exfil")
	attribution.AttributeAll(evs)
	return storetest.WithTies(evs)
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
