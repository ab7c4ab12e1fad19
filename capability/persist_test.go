package capability

import (
	"bytes"
	"encoding/gob"
	"reflect"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// The plain forms the kept result is written in (gob) read back the same.
func TestSetAndCoverageGob(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	s := NewSet(map[string][]*Capability{"agent-7": {{Agent: "agent-7", Kind: Process, Value: "x", Uses: []Use{{Time: t0, ID: "e1"}}}}})
	cov := NewCoverage()
	cov.Observe(&evidence.Event{Time: t0, Source: evidence.SourceProxy, Format: "squid"})
	cov.Observe(&evidence.Event{Time: t0.Add(3 * time.Minute), Source: evidence.SourceSensor, Format: "falco", Kind: evidence.KindSensorGap})
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(struct {
		S map[string][]*Capability
		C CoverageState
	}{s.ByAgent(), cov.State()}); err != nil {
		t.Fatal(err)
	}
	var back struct {
		S map[string][]*Capability
		C CoverageState
	}
	if err := gob.NewDecoder(&b).Decode(&back); err != nil {
		t.Fatal(err)
	}
	bs, bc := NewSet(back.S), FromState(back.C)
	if !reflect.DeepEqual(bs.For("agent-7"), s.For("agent-7")) || !bc.Watermark(ObsProxy).Equal(t0) {
		t.Errorf("%+v %v", bs.For("agent-7"), bc.Watermark(ObsProxy))
	}
	if !reflect.DeepEqual(bc.by, cov.by) {
		t.Errorf("read back %+v, was %+v", bc.State(), cov.State())
	}
}
