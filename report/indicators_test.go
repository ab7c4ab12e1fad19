package report_test

import (
	"context"
	"testing"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/report"
)

// The register of credential-theft leads with what was acquired and named
// by findings: the borrowed proxy credential and the host it was used from.
func TestIndicatorsOfCredentialTheft(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	ins, err := report.Indicators(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	find := func(kind, value string) *report.Indicator {
		for i := range ins {
			if ins[i].Kind == kind && ins[i].Value == value {
				return &ins[i]
			}
		}
		return nil
	}
	px := find(report.IndicatorCredential, "px-s228")
	if px == nil || px.Origin != "acquired" || len(px.Findings) == 0 || px.Uses == 0 || px.First.IsZero() || px.Last.Before(px.First) {
		t.Fatalf("px-s228: %+v", px)
	}
	if ip := find(report.IndicatorIP, "10.30.8.15"); ip == nil || ip.Origin != "acquired" || len(ip.Events) == 0 {
		t.Errorf("10.30.8.15: %+v\nregister: %+v", ip, ins)
	}
	if ins[0].Origin != "acquired" {
		t.Errorf("the register starts with %+v", ins[0])
	}
	for _, in := range ins {
		if in.Kind == report.IndicatorIP && in.Value == "10.0.2.21" {
			t.Errorf("a sandbox's own address is listed: %+v", in)
		}
	}
}
