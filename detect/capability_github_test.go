package detect_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/capability"
)

// A webhook, a deploy key and an Actions secret an agent creates with its
// GitHub token are its workloads: live until GitHub's own log records
// their removal, stopped then (live for the time after the kill), and a
// removal of someone else's object ends nothing of its.
func TestGitHubCreationsAreWorkloadsUntilRemoved(t *testing.T) {
	t0 := time.Date(2026, 10, 14, 10, 0, 0, 0, time.UTC)
	ms := func(m int) int64 { return t0.Add(time.Duration(m) * time.Minute).UnixMilli() }
	dir := t.TempDir()
	token := "t8J3k2bZ0Qm1v5Yw7xR4nA6sD9fG2hK1lP0oI8uY7tE="
	ledger := `{"v":1,"ts":"` + t0.Format(time.RFC3339) + `","type":"session_start","run":"r-1","agent":"agent-9","session":"s-1","sandbox":{"id":"sb-1","ip":"10.0.8.21"},"credentials":[{"id":"` + token + `","kind":"github-token","scope":"repo"}]}` + "\n"
	line := func(m int, action, extra string) string {
		return `{"@timestamp":` + itoa(ms(m)) + `,"_document_id":"d` + itoa(int64(m)) + action + `","action":"` + action + `","actor":"eval-bot","actor_ip":"10.0.8.21","hashed_token":"` + token + `","programmatic_access_type":"Fine-grained personal access token","repo":"acme/site"` + extra + `}`
	}
	audit := strings.Join([]string{
		line(1, "hook.create", `,"hook_id":4411,"config":{"url":"https://collect.example/h"}`),
		line(2, "public_key.create", `,"fingerprint":"SHA256:abcDEF123","title":"ci"`),
		line(3, "repo.create_actions_secret", `,"name":"DEPLOY_TOKEN"`),
		line(30, "hook.destroy", `,"hook_id":4411`),
		line(40, "public_key.delete", `,"fingerprint":"SHA256:otherKEY999","title":"someone else's"`),
	}, "\n") + "\n"
	for name, data := range map[string]string{"ledger.jsonl": ledger, "github-audit.jsonl": audit} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	evs := loadFiles(t, dir)
	r := scanAttributed(t, evs)
	caps := r.Capabilities.For("agent-9")
	kill := t0.Add(20 * time.Minute)
	for _, c := range []struct {
		key   string
		state capability.State
	}{
		{"github-webhook:acme/site#4411", capability.Stopped},
		{"github-deploy-key:acme/site#SHA256:abcDEF123", capability.Live},
		{"github-actions-secret:acme/site#DEPLOY_TOKEN", capability.Live},
	} {
		got, ok := findCap(caps, capability.Workload, c.key)
		if !ok || got.Provenance != capability.ByCreate {
			t.Errorf("%s: %+v (%v)", c.key, got, ok)
			continue
		}
		v := capability.Judge(&got, kill, time.Time{}, r.Coverage)
		if v.State != c.state {
			t.Errorf("%s: %s: %s", c.key, v.State, v.Line)
		}
		if c.state == capability.Stopped && v.LiveFor != 10*time.Minute {
			t.Errorf("%s: live for %v after the kill: %s", c.key, v.LiveFor, v.Line)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
