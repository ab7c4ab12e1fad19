package evidence_test

import (
	"testing"

	"github.com/cordon-ir/cordon/attribution/attributiontest"
	"github.com/cordon-ir/cordon/evidence"
)

// The evidence the tests read, through the one loader the packages below
// incident share (attributiontest).

func loadSample(t *testing.T, name string) []evidence.Event { return attributiontest.Sample(t, name) }

func indexed(t *testing.T, evs []evidence.Event) evidence.Store {
	return attributiontest.Indexed(t, evs)
}
