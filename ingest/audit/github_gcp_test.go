package audit_test

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/audit"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/parsetest"
)

func TestGitHubAuditGolden(t *testing.T) {
	c := parsetest.ParseFile(t, audit.NewGitHubAudit(), parsetest.Sample("github_audit", "go-github-orgs-audit-log-response.json"))
	if len(c.Events) != 1 || len(c.Rejects) != 0 {
		t.Fatalf("got %d events, %d rejects (%v); want 1 and 0", len(c.Events), len(c.Rejects), c.Rejects)
	}
	ev := c.Events[0]
	if ev.Credential[0] != "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" || ev.SrcIP != "10.0.0.1" || ev.User != "testactor" ||
		ev.Time.UnixMilli() != 1615077308538 || ev.URL != "o/blue-crayon-1" {
		t.Errorf("%+v", ev)
	}
	parsetest.CheckGolden(t, "go-github-orgs-audit-log-response", c)
}

func TestGitHubAuditFields(t *testing.T) {
	evs, err := audit.NewGitHubAudit().Parse(parse.Record{Data: []byte(`{"@timestamp":1792145400123,"action":"git.clone","actor":"eval-bot",` +
		`"actor_ip":"198.51.100.23","hashed_token":"k2Yt0b1e4dD0q8Yz0Xv5o8n2m5T1u9W3r6c7a4s2d1Q=","programmatic_access_type":"Fine-grained personal access token",` +
		`"org":"acme-eval","repo":"acme-eval/gallery","transport_protocol_name":"http"}`)})
	if err != nil || len(evs) != 1 {
		t.Fatal(err)
	}
	ev := evs[0]
	if want := "github git.clone on acme-eval/gallery by eval-bot (Fine-grained personal access token) from 198.51.100.23 org acme-eval"; ev.Message != want {
		t.Errorf("message %q\nwant    %q", ev.Message, want)
	}
	if ev.Kind != evidence.KindAPICall || !strings.Contains(strings.Join(ev.Tags, " "), "read-only") {
		t.Errorf("%+v", ev)
	}
	for _, tc := range []struct{ rec, reason string }{
		{`{"action":"repo.create","actor":"x"}`, "no @timestamp or created_at"},
		{`{"@timestamp":1792145400123}`, "no action"},
		{`{"created_at":"yesterday","action":"repo.create"}`, "bad time"},
		{`[1]`, "not a github audit event"},
	} {
		if _, err := audit.NewGitHubAudit().Parse(parse.Record{Data: []byte(tc.rec)}); err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: %v, want %q", tc.rec, err, tc.reason)
		}
	}
}

func TestGCPAuditGolden(t *testing.T) {
	c := parsetest.ParseFile(t, audit.NewGCPAudit(), parsetest.Sample("gcp_audit", "gcp-iam-docs-examples-service-accounts.jsonl"))
	// the page's examples 2 and 3 show "only the most relevant fields": no timestamp
	if len(c.Events) != 1 || len(c.Rejects) != 2 || !strings.Contains(c.Rejects[0].Reason, "no timestamp") {
		t.Fatalf("got %d events, %d rejects (%v); want 1 and 2", len(c.Events), len(c.Rejects), c.Rejects)
	}
	parsetest.CheckGolden(t, "gcp-iam-docs-examples-service-accounts", c)
}

const gcpKey = "//iam.googleapis.com/projects/acme-eval/serviceAccounts/gallery-uploader@acme-eval.iam.gserviceaccount.com/keys/c71e040fb4b71d798ce4baca14e15ab62115aaef"

func TestGCPAuditFields(t *testing.T) {
	entry := func(method, status, extra string) evidence.Event {
		t.Helper()
		rec := `{"logName":"projects/acme-eval/logs/cloudaudit.googleapis.com%2Fdata_access","timestamp":"2026-10-14T11:02:05.123456Z",` +
			`"protoPayload":{"@type":"type.googleapis.com/google.cloud.audit.AuditLog","serviceName":"storage.googleapis.com","methodName":"` + method + `",` +
			`"resourceName":"projects/_/buckets/acme-gallery/objects/x.webp","authenticationInfo":{"principalEmail":"gallery-uploader@acme-eval.iam.gserviceaccount.com",` +
			`"serviceAccountKeyName":"` + gcpKey + `"},"requestMetadata":{"callerIp":"198.51.100.23"}` + status + extra + `}}`
		evs, err := audit.NewGCPAudit().Parse(parse.Record{Data: []byte(rec)})
		if err != nil || len(evs) != 1 {
			t.Fatalf("%v", err)
		}
		return evs[0]
	}
	ev := entry("storage.objects.get", "", "")
	if ev.Credential[0] != gcpKey || ev.SrcIP != "198.51.100.23" || ev.Decision != evidence.DecisionAllow || ev.Method != "storage.objects.get" ||
		!strings.Contains(strings.Join(ev.Tags, " "), "read-only") || ev.Time.Nanosecond() != 123456000 {
		t.Errorf("%+v", ev)
	}
	if !strings.Contains(ev.Message, "(key c71e040fb4b71d798ce4baca14e15ab62115aaef) from 198.51.100.23") {
		t.Errorf("message %q", ev.Message)
	}
	refused := entry("storage.objects.get", `,"status":{"code":16,"message":"Request had invalid authentication credentials."}`, "")
	if refused.Decision != evidence.DecisionDeny || refused.Status != "16" || !strings.Contains(strings.Join(refused.Tags, " "), credentials.TagCredRefused) {
		t.Errorf("16: %+v", refused)
	}
	denied := entry("storage.objects.get", `,"status":{"code":7,"message":"denied"}`, "")
	if denied.Decision != evidence.DecisionDeny || strings.Contains(strings.Join(denied.Tags, " "), credentials.TagCredRefused) {
		t.Errorf("7: %+v", denied)
	}
	// the IAM request names the project "-"; the revoked key is named as
	// authenticationInfo names it
	del := entry("google.iam.admin.v1.DeleteServiceAccountKey", "",
		`,"request":{"name":"projects/-/serviceAccounts/gallery-uploader@acme-eval.iam.gserviceaccount.com/keys/c71e040fb4b71d798ce4baca14e15ab62115aaef"}`)
	if got := credentials.Revoked(del.Tags); len(got) != 1 || got[0] != gcpKey {
		t.Errorf("revokes %v, want %s", got, gcpKey)
	}
}

func FuzzGitHubAudit(f *testing.F) {
	parsetest.Fuzz(f, audit.NewGitHubAudit(), parsetest.Sample("github_audit", "go-github-orgs-audit-log-response.json"))
}

func FuzzGCPAudit(f *testing.F) {
	parsetest.Fuzz(f, audit.NewGCPAudit(), parsetest.Sample("gcp_audit", "gcp-iam-docs-examples-service-accounts.jsonl"))
}
