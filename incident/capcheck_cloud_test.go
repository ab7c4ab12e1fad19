package incident_test

import (
	"github.com/cordon-ir/cordon/capability"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

// A cloud key is stopped only when that cloud's audit log is ingested
// and reports after the kill: the proxy's log says nothing of it, and a
// use the audit log shows after the kill keeps it live.
func TestCloudKeyLayerNeedsItsAuditLog(t *testing.T) {
	kill := time.Date(2026, 10, 14, 11, 10, 0, 0, time.UTC)
	key := capability.Capability{Agent: "agent-52", Kind: capability.Credential, Value: "AKIAEVAL52EXAMPLE", Origin: capability.Granted,
		Owner: "agent-52", CredKind: "aws-access-key"}
	place := capability.Capability{Agent: "agent-52", Kind: capability.Place, Value: "198.51.100.23", Origin: capability.Acquired,
		CredKind: "aws-access-key", How: "AKIAEVAL52EXAMPLE of agent-52 used from it, outside every sandbox"}
	reported := func(formats ...string) *capability.Coverage {
		c := capability.NewCoverage()
		for _, f := range formats {
			src := evidence.SourceAudit
			if f == "squid" {
				src = evidence.SourceProxy
			}
			c.Observe(&evidence.Event{Source: src, Format: f, Time: kill.Add(time.Hour)})
		}
		return c
	}
	for _, tc := range []struct {
		name    string
		formats []string // what reported after the kill
		uses    []capability.Use
		want    capability.State
		line    string
	}{
		{"only the proxy", []string{"squid"}, nil, capability.CannotTell, "an AWS CloudTrail log is not in this incident"},
		{"cloudtrail, no use", []string{"squid", "cloudtrail"}, nil, capability.Stopped, "not used after"},
		{"cloudtrail shows a use", []string{"cloudtrail"}, []capability.Use{{Time: kill.Add(5 * time.Minute), ID: "e1", From: "198.51.100.23", Source: "audit"}},
			capability.Live, "used once after the kill (2026-10-14 11:10:00Z) from 198.51.100.23"},
		{"a refused use", []string{"cloudtrail"}, []capability.Use{{Time: kill.Add(5 * time.Minute), ID: "e1", From: "198.51.100.23", Refused: true}},
			capability.Stopped, "not used after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := key
			c.Uses = tc.uses
			if v := capability.Judge(&c, kill, time.Time{}, reported(tc.formats...)); v.State != tc.want || !strings.Contains(v.Line, tc.line) {
				t.Errorf("%s: %s, want %s saying %q", v.State, v.Line, tc.want, tc.line)
			}
		})
	}
	// a host is seen where its key is: the proxy's log is not enough
	if v := capability.Judge(&place, kill, time.Time{}, reported("squid")); v.State != capability.CannotTell || !strings.Contains(v.Line, "an AWS CloudTrail log is not in this incident") {
		t.Errorf("place: %s %s", v.State, v.Line)
	}
}

// cutCloud copies the cloud-key-after-kill sample keeping what was
// written before cut: ledger and sensor lines by their time, Squid lines
// by theirs, Kubernetes audit events by their stage time, and the
// CloudTrail files delivered (named) before it.
func cutCloud(t *testing.T, cut time.Time) string {
	t.Helper()
	src := filepath.Join("..", "sample-incidents", "cloud-key-after-kill")
	dst := t.TempDir()
	isoRe := regexp.MustCompile(`"(?:ts|time|stageTimestamp)":"([^"]+)"`)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".md") {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if strings.HasPrefix(rel, "drill-answers") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var keep []string
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			var at time.Time
			switch m := isoRe.FindStringSubmatch(line); {
			case strings.Contains(rel, "_CloudTrail_"):
				stamp := strings.Split(filepath.Base(rel), "_")[3]
				at, _ = time.Parse("20060102T1504Z", stamp)
			case m != nil:
				at, _ = time.Parse(time.RFC3339Nano, m[1])
			default:
				sec, _ := strconv.ParseFloat(strings.Fields(line)[0], 64)
				at = time.Unix(0, int64(sec*1e9))
			}
			if at.IsZero() {
				t.Fatalf("%s: no time in %.80q", rel, line)
			}
			if at.Before(cut) {
				keep = append(keep, line)
			}
		}
		if len(keep) == 0 {
			return nil
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, []byte(strings.Join(keep, "\n")+"\n"), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// cloud-key-after-kill: agent-52 handed its own AWS key and its pod's
// service-account token to a preview runner outside every sandbox. Killed
// at 10:54:02, the credentials and external-sessions layers are live on
// what CloudTrail and the Kubernetes audit log show when cut at 11:10,
// before any end. On the whole evidence they stopped only at the key's
// deactivation (CloudTrail, 11:18:31) and the service account's deletion
// (Kubernetes audit, 11:24:10): stopped then, live after the kill until
// then, never a plain "verified". Killed at 11:25, after both, they are
// stopped: the runner's tries with the deactivated key were refused.
func TestCloudKeyAfterKill(t *testing.T) {
	kill := time.Date(2026, 10, 14, 10, 54, 2, 100_000_000, time.UTC)
	steps := []string{"contain.credentials", "contain.external"}
	sample := "../sample-incidents/cloud-key-after-kill"
	open := checkAfter(t, cutCloud(t, time.Date(2026, 10, 14, 11, 10, 0, 0, time.UTC)), "agent-52", kill, steps...)
	atKill := checkAfter(t, sample, "agent-52", kill, steps...)
	later := checkAfter(t, sample, "agent-52", time.Date(2026, 10, 14, 11, 25, 0, 0, time.UTC), steps...)
	for _, step := range steps {
		if r := open[step]; r.Status != incident.CheckNotVerified || !strings.Contains(r.Detail, "AKIAEVAL611EXAMPLE01") || !strings.Contains(r.Detail, "198.51.100.23") {
			t.Errorf("cut at 11:10, %s: %s", step, r.Summary())
		}
		if r := atKill[step]; !strings.HasPrefix(r.Summary(), "stopped at 2026-10-14 11:24:10Z, live after the kill until then") {
			t.Errorf("whole evidence, at the kill, %s: %s", step, r.Summary())
		}
		if r := later[step]; r.Status != incident.CheckVerified || !strings.HasPrefix(r.Summary(), "verified") {
			t.Errorf("killed at 11:25, %s: %s", step, r.Summary())
		}
	}
	if r := atKill["contain.credentials"]; !strings.Contains(r.Detail, "stopped at 11:18:31 (revoked, CloudTrail), live for 24m29s after the kill") ||
		!strings.Contains(r.Detail, "stopped at 11:24:10 (revoked, the Kubernetes audit log)") {
		t.Errorf("whole evidence, at the kill: %s", r.Summary())
	}
}
