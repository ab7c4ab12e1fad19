// Package redacttest holds the secrets, each in its context, that the
// redaction tests and the assistant's framing tests share.
package redacttest

// Case is a text holding one secret: Secret must vanish from it, Keep (if
// set) must survive.
type Case struct {
	Name, Text, Secret, Keep string
}

// Secrets holds one case per pattern: the secret must vanish from the
// text, keep must survive. Client tests reuse them as evidence. An AWS
// access key id is not among them: it is an identifier (see Shown).
var Secrets = []Case{
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

// IssueForms are the secrets a red-team pass saw reach the endpoint in
// clear: command lines, a proxy's user field, URL queries, tokens split by
// an invisible character, and provider tokens cordon had no pattern for.
var IssueForms = []Case{
	{"ldapsearch -w", "ldapsearch -x -H ldap://dc1 -D cn=admin,dc=corp -w S3cretLdap! -b dc=corp", "S3cretLdap!", "-b dc=corp"},
	{"smbclient -U user%pass", "smbclient //fs1/share -U backup%Winter2026! -c ls", "Winter2026!", "-c ls"},
	{"openssl -passin pass:", "openssl rsa -in key.pem -passin pass:Op3nSslPw -out plain.pem", "Op3nSslPw", "-out plain.pem"},
	{"openssl -passout pass:", "openssl pkcs12 -export -passout pass:Exp0rtPw -out a.p12", "Exp0rtPw", "-out a.p12"},
	{"htpasswd -b", "htpasswd -b /etc/nginx/.htpasswd admin HtP4ssw0rd", "HtP4ssw0rd", "/etc/nginx/.htpasswd admin"},
	{"htpasswd -bc", "htpasswd -bc .htpasswd ops Bc0mbined!", "Bc0mbined!", "ops"},
	{"sqlcmd -P", "sqlcmd -S db1 -U sa -P SqlSa2026! -Q \"select 1\"", "SqlSa2026!", "select 1"},
	{"echo | sudo -S", "echo 'Sud0Pa55' | sudo -S systemctl stop auditd", "Sud0Pa55", "systemctl stop auditd"},
	{"printf | sudo -S", `printf 'Sud0Pa55\n' | sudo -S -k id`, "Sud0Pa55", "-k id"},
	{"chpasswd pipe", "echo 'root:Chp4sswd!' | chpasswd", "Chp4sswd!", "chpasswd"},
	{"chpasswd here-string", `chpasswd <<< "svc:Her3String"`, "Her3String", "chpasswd"},
	{"unzip -P", "unzip -P Z1pP4ss -o loot.zip", "Z1pP4ss", "loot.zip"},
	{"7z -p", "7z x -pSev3nZip archive.7z", "Sev3nZip", "archive.7z"},
	{"squid user field", "GET http://intranet/wiki -> 200 TCP_MISS by alice:Squ1dPass", "Squ1dPass", "by alice:"},
	{"api key in a url query", "GET https://maps.googleapis.com/maps/api/geocode/json?address=x&key=AIzaSyD4F1xQ9l8m2n3o4p5q6r7s8t9u0v1w2x3", "AIzaSyD4F1xQ9l8m2n3o4p5q6r7s8t9u0v1w2x3", "address=x"},
	{"zero-width inside a token", "token ghp_16C7e42F292c6912E\u200b7710c838347Ae178B4a used", "7710c838347Ae178B4a", "used"},
	{"escape inside a token", "export GH=ghp_16C7e42F292c6912E\x1b[0m7710c838347Ae178B4a", "7710c838347Ae178B4a", "export GH="},
	{"written zero-width inside a token", `{"out":"GH_TOKEN=ghp_16C7e42F292c6912E\u200b7710c838347Ae178B4a"}`, "7710c838347Ae178B4a", `{"out":`},
	{"written escape inside a token", `printf 'xoxb-2048-4096-aBcD\x1b[0meFgHiJkLmNoP'`, "eFgHiJkLmNoP", "printf"},
	{"bidi inside a token", "sk-proj-Ab3dEf6hIj\u202e9kLm2nOp5qRs8tUv1wXy4z", "9kLm2nOp5qRs8tUv1wXy4z", ""},
	{"pypi upload token", "twine upload -p pypi-AgEIcHlwaS5vcmcCJGE4ZjlmMzE0LWJhZTEtNGQ0Zi1iZmJjLTM1YmZhYzg0YzBjNwACJXsicGVybWlzc2lvbnMiOiAidXNlciIsICJ2ZXJzaW9uIjogMX0AAAYgN2Y dist/*", "pypi-AgEIcHlwaS5vcmcCJGE4ZjlmMzE0LWJhZTEtNGQ0Zi1iZmJjLTM1YmZhYzg0YzBjNwACJXsicGVybWlzc2lvbnMiOiAidXNlciIsICJ2ZXJzaW9uIjogMX0AAAYgN2Y", "dist/*"},
	{"sendgrid", "SENDGRID=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 curl", "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", "curl"},
	{"slack app token", "connect with xapp-1-A0123456789-1234567890123-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef ok", "xapp-1-A0123456789-1234567890123-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", " ok"},
}
