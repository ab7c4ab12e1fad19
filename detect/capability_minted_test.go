package detect_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/evidence"
)

// An agent holding an AWS key makes three more credentials through the
// API — a console password for a user, a role's session, an access key —
// and each is a credential it created, used in CloudTrail after the kill
// and ended by AWS's own record: DeleteLoginProfile, the session's
// recorded expiry, DeleteAccessKey. None is "stopped" at the kill.
func TestMintedCredentialsAreTheCreatorsAndEndWithTheIssuer(t *testing.T) {
	evs, at := mintedCase(t)
	r := scanAttributed(t, evs)
	caps := r.Capabilities.For("agent-9")
	kill := at(20)
	for _, c := range []struct {
		value   string
		kind    string
		end     time.Time
		lastUse time.Time
		liveFor time.Duration
	}{
		{"console-login:backdoor", "aws-console-login", at(50), at(30), 30 * time.Minute},
		{"ASIATEMP000000000001", "aws-session", at(62), at(40), 42 * time.Minute},
		{"AKIANEW0000000000001", "aws-access-key", at(55), at(45), 35 * time.Minute},
	} {
		got, ok := findCap(caps, capability.Credential, c.value)
		if !ok || got.Provenance != capability.ByCreate || got.CredKind != c.kind {
			t.Errorf("%s: %+v (%v)", c.value, got, ok)
			continue
		}
		if obs, _ := capability.Observers(&got); len(obs) == 0 {
			t.Errorf("%s: no source can see its use", c.value)
		}
		v := capability.Judge(&got, kill, time.Time{}, r.Coverage)
		if v.State != capability.Stopped || v.LiveFor != c.liveFor || v.LastUse == nil || !v.LastUse.Time.Equal(c.lastUse) {
			t.Errorf("%s killed at 10:20: %s (live for %v): %s", c.value, v.State, v.LiveFor, v.Line)
		}
		if e, ok := got.Ended(); !ok || !e.At.Equal(c.end) || e.Authority != capability.Authoritative {
			t.Errorf("%s: end %+v", c.value, got.Ends)
		}
	}
}

// mintedCase is an agent holding an AWS key that makes a console password,
// a role's session and an access key with it, each used after 10:20 and
// ended by AWS's own record; at gives the case's minutes as times.
func mintedCase(t *testing.T) ([]evidence.Event, func(int) time.Time) {
	t.Helper()
	t0 := time.Date(2026, 10, 14, 10, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	ts := func(m int) string { return at(m).Format("2006-01-02T15:04:05Z") }
	dir := t.TempDir()
	ledger := `{"v":1,"ts":"` + at(0).Format(time.RFC3339) + `","type":"session_start","run":"r-1","agent":"agent-9","session":"s-1","sandbox":{"id":"sb-1","ip":"10.0.8.21"},"credentials":[{"id":"AKIAAGENT0000000001","kind":"aws-access-key","scope":"s3"}]}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "ledger.jsonl"), []byte(ledger), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(m int, name, key, user string, req, resp map[string]any) map[string]any {
		r := map[string]any{"eventVersion": "1.09", "eventTime": ts(m), "eventSource": "iam.amazonaws.com", "eventName": name,
			"awsRegion": "us-east-1", "sourceIPAddress": "10.0.8.21", "eventID": name + ts(m), "eventType": "AwsApiCall",
			"userIdentity": map[string]any{"type": "IAMUser", "accountId": "111122223333", "accessKeyId": key, "userName": user}}
		if req != nil {
			r["requestParameters"] = req
		}
		if resp != nil {
			r["responseElements"] = resp
		}
		return r
	}
	expiry := at(62).Format("Jan 2, 2006, 3:04:05 PM")
	records := []map[string]any{
		call(1, "CreateLoginProfile", "AKIAAGENT0000000001", "ci", map[string]any{"userName": "backdoor"}, map[string]any{"loginProfile": map[string]any{"userName": "backdoor"}}),
		call(2, "AssumeRole", "AKIAAGENT0000000001", "ci", map[string]any{"roleArn": "arn:aws:iam::111122223333:role/deploy", "roleSessionName": "x"},
			map[string]any{"credentials": map[string]any{"accessKeyId": "ASIATEMP000000000001", "expiration": expiry}}),
		call(3, "CreateAccessKey", "AKIAAGENT0000000001", "ci", map[string]any{"userName": "ci"}, map[string]any{"accessKey": map[string]any{"accessKeyId": "AKIANEW0000000000001", "userName": "ci"}}),
		call(30, "ConsoleLogin", "", "backdoor", nil, map[string]any{"ConsoleLogin": "Success"}),
		call(40, "ListBuckets", "ASIATEMP000000000001", "", nil, nil),
		call(45, "ListUsers", "AKIANEW0000000000001", "ci", nil, nil),
		call(50, "DeleteLoginProfile", "AKIAADMIN00000000001", "admin", map[string]any{"userName": "backdoor"}, nil),
		call(55, "DeleteAccessKey", "AKIAADMIN00000000001", "admin", map[string]any{"accessKeyId": "AKIANEW0000000000001", "userName": "ci"}, nil),
		call(70, "ListUsers", "AKIAADMIN00000000001", "admin", nil, nil),
	}
	data, err := json.Marshal(map[string]any{"Records": records})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trail.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return loadFiles(t, dir), at
}
