package capability

import (
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
