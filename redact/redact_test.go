package redact

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/redact/redacttest"
)

func TestRedactSecrets(t *testing.T) {
	for _, c := range redacttest.Secrets {
		var r Redactor
		got := r.Redact(c.Text)
		if strings.Contains(got, c.Secret) {
			t.Errorf("%s: secret survived: %q", c.Name, got)
		}
		if !strings.Contains(got, "[SECRET-1]") {
			t.Errorf("%s: no placeholder: %q", c.Name, got)
		}
		if c.Keep != "" && !strings.Contains(got, c.Keep) {
			t.Errorf("%s: context %q lost: %q", c.Name, c.Keep, got)
		}
		if r.Count() == 0 {
			t.Errorf("%s: count 0", c.Name)
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
	a := r.Redact("key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z then ghp_16C7e42F292c6912E7710c838347Ae178B4a")
	b := r.Redact("again sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z")
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
