package redact

import (
	"testing"
)

// FuzzRedact: redaction never panics on hostile text, is stable (the same
// text gives the same output with a fresh redactor), and redacting its own
// output finds nothing more to hide.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"AKIAIOSFODNN7EXAMPLE aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2lnbmF0dXJl",
		"https://user:hunter2@example.com/x?token=abc123def456ghi789",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
		"ghp_0123456789abcdefghijABCDEFGHIJklmnop xoxb-1234-5678-abcdefghijklmnop",
		"password: \"\\u0000\x1b[2J\"", "", "\xff\xfe",
		// option classes and the tool table
		"mysql -uroot -pMyS3cret app; sshpass -p 'a b' ssh h | keytool -srcstorepass X1 -new Y2",
		`{"cmd":"migrate --db-pass \"Pg p4ss\" --host db\nsqlplus scott/T1ger@orcl"}`,
		"xfreerdp /u:a /p:Rdp-Pa55 /v:h; snmpwalk -c Publ1c 10.0.0.1; rabbitmqctl add_user ops Rb1tPw",
		// URL queries, credential files, connection strings
		"GET https://b/k?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F1&X-Amz-Signature=fe5f80f7&sig=abc%3D&code=4/0Ab",
		"machine h login u password p4ss\ndb:5432:app:svc:PgPw\nroot:$6$salt$hash:19000::",
		`{"auths":{"r":{"auth":"Ym90OlJlZ2lzdHJ5UGE1NQ=="}}} corp/admin:Imp4ck@10.0.0.5 jdbc:oracle:thin:a/b@h`,
		// keys cut across records, base64-wrapped secrets, identifiers
		"Q1w2E3r4T5y6U7i8O9p0AbCdEfGh\n-----END RSA PRIVATE KEY-----",
		"MIIEowIBAAKCAQEA7bq98vXcQ1w2E3r4T5y6U7i8O9p0AbCdEfGhIjKlMnOpQrSt",
		"echo Z2hwXzE2QzdlNDJGMjkyYzY5MTJFNzcxMGM4MzgzNDdBZTE3OEI0YQ== | base64 -d",
		"system:serviceaccount:ns:token-reader SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 AKIAEVAL611EXAMPLE01:secretvalue",
		"read secrets (/run/secrets/eval/s-228/allowlist.txt) PWD=/home/agent pass: x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Redact(s, &Redactor{})
		if again := Redact(s, &Redactor{}); again != out {
			t.Fatalf("not stable: %q then %q", out, again)
		}
		r := &Redactor{}
		if twice := Redact(out, r); twice != out || r.Count() != 0 {
			t.Fatalf("redacting the output again changed it (%d more): %q -> %q", r.Count(), out, twice)
		}
	})
}
