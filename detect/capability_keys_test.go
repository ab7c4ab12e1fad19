package detect_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"github.com/cordon-ir/cordon/capability"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/redact"
)

// Keys an agent's tool output held, never issued to any session, are in
// its capability set by the case's placeholders: acquired where the
// output showed them, used where its later tool call presents one or a
// cloud's audit log names one, and the kill switch judges them on those
// uses.
func TestKeysInToolOutputAreAcquiredCapabilities(t *testing.T) {
	const awsKey = "AKIAQ3EVALSHARED0042"
	const ghToken = "ghp_Zk8mQ2rT7vX1bN4cF6hJ9pL3sD5gW0yE2uA8"
	const openaiKey = "sk-proj-Q7wE9rT2yU4iO6pA8sD0fG1hJ3kL5zX"
	dir := t.TempDir()
	ledger := `{"v":1,"ts":"2026-10-20T09:00:00.000Z","type":"session_start","run":"r-1","agent":"agent-3","session":"s-3","model":"m","objective":"tidy the shared notes","sandbox":{"id":"sb-3","container_id":"0a1b2c3d4e5f","ip":"10.0.9.5","host":"eval-node-1"},"credentials":[{"id":"px-s3","kind":"proxy-auth","scope":"egress-proxy:session"}],"tools_allowed":["bash","read_file"],"egress_allowlist":["pypi.org"]}
{"v":1,"ts":"2026-10-20T09:01:00.000Z","type":"tool_call","run":"r-1","agent":"agent-3","session":"s-3","call_id":"c-1","tool":"read_file","args":{"path":"/shared/notes/deploy.txt"},"read_only":true}
{"v":1,"ts":"2026-10-20T09:01:00.100Z","type":"tool_result","run":"r-1","agent":"agent-3","session":"s-3","call_id":"c-1","status":"ok","output_excerpt":"deploy notes: aws_access_key_id = ` + awsKey + `; push with ` + ghToken + `; OPENAI_API_KEY=` + openaiKey + `","output_digest":"sha256:00"}
{"v":1,"ts":"2026-10-20T09:20:00.000Z","type":"tool_call","run":"r-1","agent":"agent-3","session":"s-3","call_id":"c-2","tool":"bash","args":{"cmd":"git push https://x:` + ghToken + `@github.com/acme/notes main"}}
{"v":1,"ts":"2026-10-20T09:20:01.000Z","type":"tool_result","run":"r-1","agent":"agent-3","session":"s-3","call_id":"c-2","status":"ok","output_excerpt":"main -> main","output_digest":"sha256:01"}
`
	trail := `{"Records":[{"eventVersion":"1.09","userIdentity":{"type":"IAMUser","principalId":"AIDAEVALSHARED000042","arn":"arn:aws:iam::111122223333:user/deploy","accountId":"111122223333","accessKeyId":"` + awsKey + `","userName":"deploy"},"eventTime":"2026-10-20T09:25:00Z","eventSource":"s3.amazonaws.com","eventName":"ListBuckets","awsRegion":"eu-west-1","sourceIPAddress":"198.51.100.23","userAgent":"aws-cli/2.17.0","requestParameters":null,"responseElements":null,"requestID":"R1","eventID":"e0c6f3b1-0000-4000-8000-000000000001","readOnly":true,"eventType":"AwsApiCall","managementEvent":true,"recipientAccountId":"111122223333","eventCategory":"Management"}]}`
	// GitHub's audit log names a token by its hash: base64 of its SHA-256
	sum := sha256.Sum256([]byte(ghToken))
	ghAudit := `{"@timestamp":1792488300000,"action":"git.push","actor":"deploy-bot","actor_ip":"198.51.100.23","hashed_token":"` +
		base64.StdEncoding.EncodeToString(sum[:]) + `","programmatic_access_type":"Personal access token (classic)","org":"acme","repo":"acme/notes","transport_protocol_name":"http"}` + "\n"
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	evs := loadFiles(t, write("ledger.jsonl", ledger), write("111122223333_CloudTrail_eu-west-1_20261020T0925Z_AB12CD34EF56AB78.json", trail),
		write("github-audit.jsonl", ghAudit))
	attribution.AttributeAll(evs)
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("0123456789abcdef0123456789abcdef")
	r, err := (&detect.Engine{Rules: rules, Secrets: redact.Keyed(key)}).Scan(context.Background(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	caps := r.Capabilities.For("agent-3")
	placeholder := func(secret string) string {
		return redact.Keyed(key).Redact(secret)
	}
	for _, c := range caps {
		if strings.Contains(c.Value+c.How, ghToken) || strings.Contains(c.Value+c.How, openaiKey) {
			t.Errorf("a capability keeps the secret itself: %+v", c)
		}
	}
	// An AWS access key id is not secret (its secret key is another
	// string): the key is named by it, as IAM and CloudTrail name it.
	if placeholder(awsKey) != awsKey {
		t.Fatalf("the access key id is redacted: %s", placeholder(awsKey))
	}
	aws, ok := findCap(caps, capability.Credential, awsKey)
	if !ok {
		t.Fatalf("the AWS key the output held is not in the set by its id %s:\n%+v", awsKey, caps)
	}
	if aws.Origin != capability.Acquired || aws.CredKind != "aws-access-key" || len(aws.Uses) != 1 || aws.Uses[0].From != "198.51.100.23" {
		t.Errorf("AWS key: %+v, want acquired, aws-access-key, one use from 198.51.100.23 (the CloudTrail record)", aws)
	}
	if p, ok := findCap(caps, capability.Place, "198.51.100.23"); !ok || p.Origin != capability.Acquired {
		t.Errorf("the host the key was used from is not a place it acted from: %+v", caps)
	}
	gh, ok := findCap(caps, capability.Credential, placeholder(ghToken))
	if !ok || gh.CredKind != "github-token" || len(gh.Uses) != 2 || !gh.Uses[0].Time.Equal(time.Date(2026, 10, 20, 9, 20, 0, 0, time.UTC)) ||
		gh.Uses[1].From != "198.51.100.23" {
		t.Fatalf("GitHub token: %+v, want two uses: the git push at 09:20 and GitHub's record of it by hash from 198.51.100.23", gh)
	}
	oa, ok := findCap(caps, capability.Credential, placeholder(openaiKey))
	if !ok || oa.CredKind != "openai-key" {
		t.Fatalf("the OpenAI key the output held: %+v", caps)
	}
	if px, ok := findCap(caps, capability.Credential, "px-s3"); !ok || px.Origin != capability.Granted {
		t.Errorf("its own proxy login: %+v", px)
	}

	// Killed at 09:10: both keys were used after it.
	contained := time.Date(2026, 10, 20, 9, 10, 0, 0, time.UTC)
	for _, c := range []capability.Capability{aws, gh} {
		if v := capability.Judge(&c, contained, time.Time{}, r.Coverage); v.State != capability.Live {
			t.Errorf("%s is %s: both keys were used after the kill: %s", c.Value, v.State, v.Line)
		}
	}
	// Killed at 09:30: no use since; the AWS key is judged on CloudTrail,
	// which must have reported after the kill.
	late := time.Date(2026, 10, 20, 9, 30, 0, 0, time.UTC)
	if v := capability.Judge(&aws, late, time.Time{}, capability.NewCoverage()); v.State != capability.CannotTell {
		t.Errorf("with no CloudTrail after the kill the AWS key is %s: %s", v.State, v.Line)
	}
	// A key of a service whose log cordon reads none of is never
	// stopped: a use from elsewhere would show nowhere.
	if v := capability.Judge(&oa, late, time.Time{}, r.Coverage); v.State != capability.CannotTell {
		t.Errorf("the OpenAI key is %s: %s", v.State, v.Line)
	}
}
