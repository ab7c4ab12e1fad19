package incident_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
// service-account token to a preview runner outside every sandbox. With
// containment at the kill (10:54:02) the credentials and external-sessions
// layers are open, on what CloudTrail and the Kubernetes audit log show:
// cut at 11:10 before any end, and on the whole evidence too, since the
// key was used after the kill; the lines say until when. Contained at
// 11:25, after the key's deactivation (CloudTrail, 11:18:31) and the
// service account's deletion (Kubernetes audit, 11:24:10), both verify:
// the runner's refused tries with the deactivated key close the layer.
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
		if r := later[step]; r.Status != incident.CheckVerified {
			t.Errorf("contained at 11:25, %s: %s", step, r.Summary())
		}
	}
	if r := atKill["contain.credentials"]; r.Status != incident.CheckNotVerified || !strings.Contains(r.Detail, "stayed live 24m29s after the kill (revoked in cloudtrail 11:18:31)") ||
		!strings.Contains(r.Detail, "revoked in k8s-audit 11:24:10") {
		t.Errorf("whole evidence, at the kill: %s", r.Summary())
	}
	if r := later["contain.credentials"]; !strings.Contains(r.Detail, "refused use of a credential already ended") {
		t.Errorf("the refused tries after the deactivation are not what the line says: %s", r.Detail)
	}
}
