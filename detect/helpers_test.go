package detect_test

import (
	"testing"

	"github.com/cordon-ir/cordon/attribution/attributiontest"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// The evidence the tests read, through the one loader the packages below
// incident share (attributiontest).

func loadSample(t *testing.T, name string) []evidence.Event { return attributiontest.Sample(t, name) }

func loadFiles(t *testing.T, paths ...string) []evidence.Event {
	return attributiontest.Files(t, paths...)
}

func indexed(t *testing.T, evs []evidence.Event) evidence.Store {
	return attributiontest.Indexed(t, evs)
}

type sink struct{ evs []evidence.Event }

func (s *sink) Event(ev evidence.Event) error { s.evs = append(s.evs, ev); return nil }
func (s *sink) Reject(parse.Reject) error     { return nil }
