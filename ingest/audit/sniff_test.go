package audit_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/ingest/audit"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/parsetest"
)

// Each audit parser claims its own samples and no other sample's first
// record.
func TestAuditSniffIsStrict(t *testing.T) {
	own := map[string]string{"cloudtrail": audit.FormatCloudTrail, "k8s_audit": audit.FormatK8sAudit,
		"github_audit": audit.FormatGitHubAudit, "gcp_audit": audit.FormatGCPAudit}
	parsers := []parse.Parser{audit.NewCloudTrail(), audit.NewK8sAudit(), audit.NewGitHubAudit(), audit.NewGCPAudit()}
	files, _ := filepath.Glob(parsetest.Sample("*", "*.json*"))
	files = append(files, parsetest.NotSensorSamples()...)
	if len(files) < 20 {
		t.Fatalf("only %d samples", len(files))
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() > 4<<20 {
			continue
		}
		rec := parsetest.FirstJSON(t, f)
		for _, p := range parsers {
			want := own[filepath.Base(filepath.Dir(f))] == p.Format()
			if got := p.Sniff(rec); got != want {
				t.Errorf("%s: %s.Sniff = %v, want %v", f, p.Format(), got, want)
			}
		}
	}
}
