package incident

import (
	"os"
	"reflect"
	"testing"
)

// TestKeptResultsEqual compares two kept results, each in a workspace-like
// directory (DIR/engine/result.gob): the findings (every field, evidence
// ids included), the capability sets, the coverage and the clock skews.
// A check for a change that must not change any answer, run by hand:
//
//	CORDON_KEPT_A=DIR1 CORDON_KEPT_B=DIR2 go test ./incident -run KeptResultsEqual
func TestKeptResultsEqual(t *testing.T) {
	a, b := os.Getenv("CORDON_KEPT_A"), os.Getenv("CORDON_KEPT_B")
	if a == "" || b == "" {
		t.Skip("set CORDON_KEPT_A and CORDON_KEPT_B to directories holding engine/result.gob")
	}
	ka, err := readKept(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := readKept(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	// the capability sets are read in parts, when first asked for
	capsA, capsB := ka.result().Capabilities.ByAgent(), kb.result().Capabilities.ByAgent()
	if len(ka.Findings) == 0 || len(capsA) == 0 {
		t.Fatalf("%s: %d findings, capability sets of %d agents", a, len(ka.Findings), len(capsA))
	}
	if len(ka.Findings) != len(kb.Findings) {
		t.Fatalf("%d findings against %d", len(ka.Findings), len(kb.Findings))
	}
	for i := range ka.Findings {
		if !reflect.DeepEqual(ka.Findings[i], kb.Findings[i]) {
			t.Fatalf("finding %d differs:\n%+v\n%+v", i, ka.Findings[i], kb.Findings[i])
		}
	}
	for agent, caps := range capsA {
		if !reflect.DeepEqual(caps, capsB[agent]) {
			t.Fatalf("capability set of %s differs", agent)
		}
	}
	if len(capsA) != len(capsB) {
		t.Fatalf("capability sets of %d agents against %d", len(capsA), len(capsB))
	}
	if !reflect.DeepEqual(ka.Coverage, kb.Coverage) || !reflect.DeepEqual(ka.Skews, kb.Skews) {
		t.Fatal("coverage or clock skews differ")
	}
	t.Logf("%d findings, capability sets of %d agents: equal", len(ka.Findings), len(capsA))
}
