package capability

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// A set and a coverage read back from their JSON answer as before: the
// same capabilities per agent, the same watermarks and gaps.
func TestSetAndCoverageRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	s := NewSet(map[string][]*Capability{"agent-7": {{Agent: "agent-7", Kind: Credential, Value: "px-s228", Origin: Granted,
		Uses: []Use{{Time: t0, ID: "e1", Source: evidence.SourceProxy}}, Ends: []End{{At: t0.Add(time.Minute), How: "revoked", Authority: Authoritative}}}}})
	cov := NewCoverage()
	cov.Observe(&evidence.Event{Time: t0, Source: evidence.SourceProxy, Format: "squid"})
	cov.Observe(&evidence.Event{Time: t0.Add(3 * time.Minute), Source: evidence.SourceSensor, Format: "falco", Kind: evidence.KindSensorGap})
	b, err := json.Marshal(struct {
		S *Set      `json:"s"`
		C *Coverage `json:"c"`
	}{s, cov})
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		S *Set      `json:"s"`
		C *Coverage `json:"c"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.S.For("agent-7"), s.For("agent-7")) || len(back.S.Agents()) != 1 {
		t.Errorf("set: %+v", back.S.For("agent-7"))
	}
	for _, o := range []Observer{ObsProxy, ObsSensor} {
		if !back.C.Watermark(o).Equal(cov.Watermark(o)) {
			t.Errorf("%s watermark %v, was %v", o.Name, back.C.Watermark(o), cov.Watermark(o))
		}
	}
	if !reflect.DeepEqual(back.C.gaps, cov.gaps) || !reflect.DeepEqual(back.C.minutes, cov.minutes) {
		t.Errorf("gaps %v minutes %v, were %v %v", back.C.gaps, back.C.minutes, cov.gaps, cov.minutes)
	}
}

// The plain forms the kept result is written in (gob) read back the same.
func TestSetAndCoverageGob(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	s := NewSet(map[string][]*Capability{"agent-7": {{Agent: "agent-7", Kind: Process, Value: "x", Uses: []Use{{Time: t0, ID: "e1"}}}}})
	cov := NewCoverage()
	cov.Observe(&evidence.Event{Time: t0, Source: evidence.SourceProxy, Format: "squid"})
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
}
