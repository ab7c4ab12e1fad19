package assist

import (
	"strings"
	"testing"
)

// secretCases holds one case per pattern: the secret must vanish from the
// text, keep must survive. Client tests reuse them as evidence.
var secretCases = []struct {
	name, text, secret, keep string
}{
	{"aws key id", "aws s3 cp --profile x AKIAIOSFODNN7EXAMPLE s3://bucket", "AKIAIOSFODNN7EXAMPLE", "s3://bucket"},
	{"aws session key id", "creds ASIAY34FZKBOKMUTVV7A in env", "ASIAY34FZKBOKMUTVV7A", "in env"},
	{"aws secret in context", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key"},
	{"github ghp", "git clone https://github.com/x/y using ghp_16C7e42F292c6912E7710c838347Ae178B4a", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "github.com/x/y"},
	{"github gho", "token gho_abcdefghijklmnopqrstuvwxyz0123456789 used", "gho_abcdefghijklmnopqrstuvwxyz0123456789", "used"},
	{"github ghu", "ghu_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "ghu_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", ""},
	{"github ghs", "GH ghs_zyxwvutsrqponmlkjihgfedcba9876543210", "ghs_zyxwvutsrqponmlkjihgfedcba9876543210", "GH"},
	{"github ghr", "ghr_1B4a2e77838347a7E420ce178F2E7c6912E1 refresh", "ghr_1B4a2e77838347a7E420ce178F2E7c6912E1", "refresh"},
	{"github pat", "GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF", "GH="},
	{"gitlab", "curl -H 'PRIVATE-TOKEN: glpat-xR3pQ9zL2mN8vB4kJ7hY' gitlab.example.com", "glpat-xR3pQ9zL2mN8vB4kJ7hY", "gitlab.example.com"},
	{"slack token", "posted with xoxb-2048-4096-aBcDeFgHiJkLmNoP", "xoxb-2048-4096-aBcDeFgHiJkLmNoP", "posted with"},
	{"slack user token", "xoxp-1234567890-abcdefABCDEF", "xoxp-1234567890-abcdefABCDEF", ""},
	{"slack webhook", "POST https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "hooks.slack.com/services/"},
	{"openai", "OPENAI key sk-abcdefghijklmnopqrstuvwxyz012345 leaked", "sk-abcdefghijklmnopqrstuvwxyz012345", "leaked"},
	{"openai project", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", ""},
	{"jwt", "cookie session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudC03In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudC03In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk", "cookie"},
	{"bearer header", "curl -H 'Authorization: Bearer abc123DEF456ghi789' https://api.example.com", "abc123DEF456ghi789", "https://api.example.com"},
	{"basic header", `{"headers":{"Authorization":"Basic dXNlcjpodW50ZXIy"}}`, "dXNlcjpodW50ZXIy", "Authorization"},
	{"url password", "git push https://deploy:Tr0ub4dor3@git.example.com/repo.git", "Tr0ub4dor3", "https://deploy:"},
	{"pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq98vXc\nq1w2e3r4t5y6\n-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA7bq98vXc", ""},
	{"pem escaped", `{"content":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"}`, "b3BlbnNzaC1rZXktdjEAAAAA", `"content"`},
	{"password json", `{"user":"svc","password":"correct horse battery"}`, "correct horse battery", `"user":"svc"`},
	{"password escaped json", `{\"db_password\":\"s3cr3t-pw\"}`, "s3cr3t-pw", "db_password"},
	{"secret yaml", "client_secret: 9f8e7d6c5b4a-secret", "9f8e7d6c5b4a-secret", "client_secret:"},
	{"token env", "export GITHUB_TOKEN=abcd1234efgh", "abcd1234efgh", "GITHUB_TOKEN="},
	{"api_key query", "GET https://api.example.com/v1/data?api_key=k3y-v4lu3&page=2", "k3y-v4lu3", "page=2"},
	{"password flag", "mysql -u root --password=hunter22 db", "hunter22", "mysql -u root"},
	{"entropy in context", "x-session-key: Zm9vYmFyQmF6UXV4MTIzNDU2Nzg5MGFiY2Rl", "Zm9vYmFyQmF6UXV4MTIzNDU2Nzg5MGFiY2Rl", "x-session-key"},
	{"password flag spaced", "mysql --password hunter2secret db", "hunter2secret", "mysql"},
	{"sshpass -p", "sshpass -p Tr0ub4dor3 ssh ops@10.0.0.5", "Tr0ub4dor3", "ssh ops@10.0.0.5"},
	{"redis-cli -a", "redis-cli -h cache -a Hunter2Hunter2 ping", "Hunter2Hunter2", "ping"},
	{"docker login -p", "docker login -u bot -p s3cretPassw0rd registry.example.com", "s3cretPassw0rd", "registry.example.com"},
	{"curl -u", "curl -u admin:Sup3rS3cret! https://x.example.com", "Sup3rS3cret!", "https://x.example.com"},
	{"stripe", "charge with sk_live_51HxAbCdEfGhIjKlMnOp", "sk_live_51HxAbCdEfGhIjKlMnOp", "charge with"},
	{"docker pat", "echo dckr_pat_abcdefghijKLMNOPqrst | docker login", "dckr_pat_abcdefghijKLMNOPqrst", "docker login"},
}

func TestRedactSecrets(t *testing.T) {
	for _, c := range secretCases {
		var r Redactor
		got := r.Redact(c.text)
		if strings.Contains(got, c.secret) {
			t.Errorf("%s: secret survived: %q", c.name, got)
		}
		if !strings.Contains(got, "[SECRET-1]") {
			t.Errorf("%s: no placeholder: %q", c.name, got)
		}
		if c.keep != "" && !strings.Contains(got, c.keep) {
			t.Errorf("%s: context %q lost: %q", c.name, c.keep, got)
		}
		if r.Count() == 0 {
			t.Errorf("%s: count 0", c.name)
		}
	}
}

func TestRedactKeepsEvidence(t *testing.T) {
	cases := []struct{ name, text string }{
		{"event id", "id 3fa1c2d4e5f60718 kind tool_call"},
		{"sha256 digest field", `{"digest":"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}`},
		{"context digest", "context_digest=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"uuid", "session 123e4567-e89b-12d3-a456-426614174000 started"},
		{"uuid near token word", "token_id 123e4567-e89b-12d3-a456-426614174000"},
		{"container id", "container=4f66ad9a0b2e3c1d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d"},
		{"container id near secret word", "secret store in container 4f66ad9a0b2e3c1d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d"},
		{"short container id", "container 3f2a9c1d7e88 exec"},
		{"host names", "CONNECT pastebin.example.com:443 denied by policy egress-allowlist"},
		{"port flags", "psql -h db -p 5432 -U app; mysql -P 3306 -h db; ssh -p 2222 ops@host"},
		{"token flag with no value", "gh auth login --with-token < /dev/stdin"},
		{"path", "open /home/agent/.aws/credentials"},
		{"credential id", "credential cred-agent7-aws-readonly issued"},
		{"task word", "task-abcdefghijklmnopqrstuvwxyz0123 queued"},
		{"token count", "tokens=1532 used"},
		{"redacted marker", `password: "***"`},
		{"long words near key", "keyboard_interactive_authentication_disabled"},
		{"k8s pod", "pod agent-sandbox-7d9f8c6b5-xk2lp restarted"},
	}
	for _, c := range cases {
		var r Redactor
		if got := r.Redact(c.text); got != c.text || r.Count() != 0 {
			t.Errorf("%s: redacted evidence: %q -> %q", c.name, c.text, got)
		}
	}
}

func TestRedactStablePlaceholders(t *testing.T) {
	var r Redactor
	a := r.Redact("key AKIAIOSFODNN7EXAMPLE then ghp_16C7e42F292c6912E7710c838347Ae178B4a")
	b := r.Redact("again AKIAIOSFODNN7EXAMPLE")
	if a != "key [SECRET-1] then [SECRET-2]" || b != "again [SECRET-1]" {
		t.Fatalf("placeholders: %q, %q", a, b)
	}
	if r.Count() != 3 || r.Secrets() != 2 {
		t.Errorf("count %d secrets %d, want 3 and 2", r.Count(), r.Secrets())
	}
	c := r.Clone()
	c.Redact("xoxb-2048-4096-aBcDeFgHiJkLmNoP")
	if r.Count() != 3 || c.Count() != 4 {
		t.Errorf("clone shares state: %d %d", r.Count(), c.Count())
	}
	if got := Redact("sk-abcdefghijklmnopqrstuvwxyz012345", nil); got != "[SECRET-1]" {
		t.Errorf("nil redactor: %q", got)
	}
}
