package incident_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/playbook"
)

// A cloud key's layer is verified only when that cloud's audit log is
// ingested and reports after the stop: the proxy's log says nothing of
// it, and a use the audit log shows after the stop keeps the layer open.
func TestCloudKeyLayerNeedsItsAuditLog(t *testing.T) {
	kill := time.Date(2026, 10, 14, 11, 10, 0, 0, time.UTC)
	key := detect.Capability{Agent: "agent-52", Kind: detect.CapCredential, Value: "AKIAEVAL52EXAMPLE", Origin: detect.OriginGranted,
		Owner: "agent-52", CredKind: "aws-access-key"}
	place := detect.Capability{Agent: "agent-52", Kind: detect.CapPlace, Value: "198.51.100.23", Origin: detect.OriginAcquired,
		CredKind: "aws-access-key", How: "AKIAEVAL52EXAMPLE of agent-52 used from it, outside every sandbox"}
	for _, tc := range []struct {
		name    string
		formats []string // what reported after the stop
		uses    []detect.Use
		want    incident.CheckStatus
		line    string
	}{
		{"only the proxy", []string{"+source:proxy"}, nil, incident.CheckNoEvidence, "an AWS CloudTrail log would"},
		{"cloudtrail, no use", []string{"+source:proxy", "+format:cloudtrail"}, nil, incident.CheckVerified, "not used after"},
		{"cloudtrail shows a use", []string{"+format:cloudtrail"}, []detect.Use{{Time: kill.Add(5 * time.Minute), ID: "e1", From: "198.51.100.23", Source: "audit"}},
			incident.CheckNotVerified, "used once from 198.51.100.23"},
		{"a refused use", []string{"+format:cloudtrail"}, []detect.Use{{Time: kill.Add(5 * time.Minute), ID: "e1", From: "198.51.100.23", Refused: true}},
			incident.CheckVerified, "not used after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen := func(q string, after time.Time) bool {
				return after.Equal(kill) && strings.Contains(strings.Join(tc.formats, " "), q)
			}
			c := key
			c.Uses = tc.uses
			got := incident.CheckCapabilities(playbook.LayerCachedCredentials, []detect.Capability{c}, kill, seen)
			if len(got) != 1 || got[0].Status != tc.want || !strings.Contains(got[0].Line, tc.line) {
				t.Errorf("%+v, want %s saying %q", got, tc.want, tc.line)
			}
		})
	}
	// a host is seen where its key is: the proxy's log is not enough
	seen := func(q string, after time.Time) bool { return q == "+source:proxy" }
	got := incident.CheckCapabilities(playbook.LayerExternalSessions, []detect.Capability{place}, kill, seen)
	if len(got) != 1 || got[0].Status != incident.CheckNoEvidence || !strings.Contains(got[0].Line, "an AWS CloudTrail log reported nothing") {
		t.Errorf("place: %+v", got)
	}
}
