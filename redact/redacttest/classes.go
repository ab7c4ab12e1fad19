package redacttest

import (
	"encoding/base64"
	"strings"
)

// ClassCase is a case of one class of secret form: each class is tested
// with several tools or forms, so that a fix for one tool is not taken for
// a fix of the class.
type ClassCase struct {
	Class string
	Case
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// pemLine is a line of a key's body, 64 characters wide.
const pemLine = "MIIEowIBAAKCAQEA7bq98vXcQ1w2E3r4T5y6U7i8O9p0AbCdEfGhIjKlMnOpQrSt"

// Classes are the forms a red-team pass saw reach the endpoint, by class.
var Classes = []ClassCase{
	// a long option named like a secret, whatever the command
	{"long option", Case{"--password=", "mysql -u root --password=hunter22 db", "hunter22", "mysql -u root"}},
	{"long option", Case{"--password quoted", "wget --user=ops --password 'S3cret Phrase' https://x.example.com/f", "S3cret Phrase", "https://x.example.com/f"}},
	{"long option", Case{"-srcstorepass", "keytool -importkeystore -srckeystore a.p12 -srcstorepass Src0Pass! -destkeystore b.jks", "Src0Pass!", "-destkeystore b.jks"}},
	{"long option", Case{"--passphrase", "gpg --batch --passphrase Gpg-Phr4se --decrypt notes.gpg", "Gpg-Phr4se", "--decrypt notes.gpg"}},
	{"long option", Case{"--token=", "kubectl --token=kTok3nValue123 get pods -A", "kTok3nValue123", "get pods -A"}},
	{"long option", Case{"--db-pass in JSON", `{"cmd":"migrate --db-pass \"Pg p4ss w0rd\" --host db"}`, "Pg p4ss w0rd", "--host db"}},
	{"long option", Case{"-pass pass:", "openssl rsa -in key.pem -passin pass:Op3nSslPw -out plain.pem", "Op3nSslPw", "-out plain.pem"}},
	// a short option, which only its tool says takes a secret
	{"short option", Case{"mysql -p attached", "mysql -uroot -pMyS3cret app", "MyS3cret", "app"}},
	{"short option", Case{"ssh-keygen -N", "ssh-keygen -t ed25519 -N 'New Phr4se' -f /tmp/k", "New Phr4se", "-f /tmp/k"}},
	{"short option", Case{"openssl -k", "openssl enc -aes-256-cbc -k EncK3yVal -in a.tar -out a.enc", "EncK3yVal", "-in a.tar"}},
	{"short option", Case{"snmpwalk -c", "snmpwalk -v2c -c Publ1cComm 10.0.0.1 system", "Publ1cComm", "10.0.0.1 system"}},
	{"short option", Case{"xfreerdp /p:", "xfreerdp /u:admin /p:Rdp-Pa55 /v:10.0.0.9", "Rdp-Pa55", "/v:10.0.0.9"}},
	{"short option", Case{"ipmitool -P", "/usr/bin/ipmitool -I lanplus -H 10.0.0.7 -U admin -P Ipm1Pass chassis status", "Ipm1Pass", "chassis status"}},
	{"short option", Case{"docker login -p", "sudo docker login -u bot -p Dock3rPw registry.example.com", "Dock3rPw", "registry.example.com"}},
	{"short option", Case{"gh secret set --body", "gh secret set DEPLOY_KEY --body Gh-S3cretBody -R acme/app", "Gh-S3cretBody", "-R acme/app"}},
	// user and password in one argument
	{"user/password", Case{"sqlplus", "sqlplus scott/T1ger0rcl@orcl @report.sql", "T1ger0rcl", "@orcl"}},
	{"user/password", Case{"jdbc thin", "java -Ddb=jdbc:oracle:thin:app/Jdbc0rcl@db1:1521/svc -jar a.jar", "Jdbc0rcl", "@db1:1521/svc"}},
	{"user/password", Case{"impacket", "impacket-psexec corp/admin:Imp4ck3t@10.0.0.5 cmd.exe", "Imp4ck3t", "@10.0.0.5"}},
	{"user/password", Case{"proxy setting", "export https_proxy=ops:Pr0xyPw@proxy.corp:3128", "Pr0xyPw", "@proxy.corp:3128"}},
	{"user/password", Case{"curl -u", "curl -sS -u deploy:Cu4lPass https://x.example.com/api", "Cu4lPass", "https://x.example.com/api"}},
	{"user/password", Case{"smbclient -U", "smbclient //fs1/share -U backup%Winter2026! -c ls", "Winter2026!", "-c ls"}},
	// credentials in a URL's query
	{"url query", Case{"S3 presigned", "GET https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261014%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Expires=900&X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024", "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024", "X-Amz-Expires=900"}},
	{"url query", Case{"Azure SAS", "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=rl&se=2026-12-01&sig=Zm9vYmFyYmF6cXV4MTIz%2BNDU2Nzg5MGFiY2RlZg%3D%3D", "Zm9vYmFyYmF6cXV4MTIz%2BNDU2Nzg5MGFiY2RlZg%3D%3D", "se=2026-12-01"}},
	{"url query", Case{"OAuth code", "GET https://app.example.com/callback?code=4/0AbCdEfGh123xyz&state=st8 302", "4/0AbCdEfGh123xyz", "state=st8"}},
	{"url query", Case{"GCS signed", "https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=0a1b2c3d4e5f60718293a4b5c6d7e8f9&X-Goog-Date=20261014", "0a1b2c3d4e5f60718293a4b5c6d7e8f9", "X-Goog-Date=20261014"}},
	{"url query", Case{"access_token", "POST https://graph.example.com/me/feed?access_token=EAAGm0PX4ZCpsBAq1 200", "EAAGm0PX4ZCpsBAq1", " 200"}},
	// credential files' contents
	{"credential file", Case{".netrc one line", "machine api.heroku.com login ops@acme.io password Her0kuT0ken", "Her0kuT0ken", "login ops@acme.io"}},
	{"credential file", Case{".netrc in a JSON string", `{"output":"machine github.com\n  login bot\n  password N3trcPa55\n"}`, "N3trcPa55", "login bot"}},
	{"credential file", Case{".pgpass", "cat ~/.pgpass\ndb.internal:5432:app:svc:PgP4ssw0rd\n", "PgP4ssw0rd", "db.internal:5432:app:svc:"}},
	{"credential file", Case{"docker config.json", `{"auths":{"registry.acme.io":{"auth":"` + b64("bot:RegistryPa55") + `"}}}`, b64("bot:RegistryPa55"), "registry.acme.io"}},
	{"credential file", Case{"/etc/shadow", "root:$6$Qs3lT8aZ$Xy7kP2qR9sT4uV6wX8yZ0aB1cD3eF5gH7iJ9kL1mN3oP5qR7sT9uV1wX3yZ5aB7cD9eF1gH3iJ5kL7mN9oP1q:19000:0:99999:7:::", "Xy7kP2qR9sT4uV6wX8yZ0aB1cD3eF5gH7", "root:"}},
	{"credential file", Case{"htpasswd", "ops:$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/", "HqJZimcKQFAMYayBlzkrA/", "ops:"}},
	// YAML and INI keys named like secrets
	{"yaml/ini key", Case{"pass:", "db:\n  user: app\n  pass: Yaml-Pa55\n", "Yaml-Pa55", "user: app"}},
	{"yaml/ini key", Case{"pwd:", "smtp:\n  pwd: Pwd-Val123\n", "Pwd-Val123", "smtp:"}},
	{"yaml/ini key", Case{"secret_key=", "[default]\naccess_key = AKIAIOSFODNN7EXAMPLE\nsecret_key = IniS3cretKeyValue\n", "IniS3cretKeyValue", "AKIAIOSFODNN7EXAMPLE"}},
	{"yaml/ini key", Case{"DB_PASS=", "DB_HOST=db\nDB_PASS=Env-Pa55\n", "Env-Pa55", "DB_HOST=db"}},
	{"yaml/ini key", Case{"pass_phrase=", "[DEFAULT]\nfingerprint=20:3b:97:13:55:1c:5b:0d:d3:37:d8:50:4e:c5:3a:34\npass_phrase=0ciPhr4se\n", "0ciPhr4se", "fingerprint=20:3b:97:13:55:1c:5b:0d:d3:37:d8:50:4e:c5:3a:34"}},
	// a private key cut across lines or records
	{"split key", Case{"header record", "-----BEGIN RSA PRIVATE KEY-----\n" + pemLine, pemLine, ""}},
	{"split key", Case{"middle record", `{"seq":2,"output":"` + pemLine + `"}`, pemLine, `"seq":2`}},
	{"split key", Case{"tail record", "Q1w2E3r4T5y6U7i8O9p0AbCdEfGh\nZ9y8X7w6V5u4T3s2\n-----END RSA PRIVATE KEY-----", "Q1w2E3r4T5y6U7i8O9p0AbCdEfGh", "-----END RSA PRIVATE KEY-----"}},
	{"split key", Case{"bare OpenSSH body", `{"output":"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz"}`, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", `"output"`}},
	{"split key", Case{"bare PKCS#8 body", "paste: MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7 (cut)", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", "(cut)"}},
	// a secret wrapped in base64
	{"base64", Case{"token piped to base64 -d", "echo " + b64("ghp_16C7e42F292c6912E7710c838347Ae178B4a") + " | base64 -d > ~/.gh", b64("ghp_16C7e42F292c6912E7710c838347Ae178B4a"), "base64 -d"}},
	{"base64", Case{"Kubernetes Secret", "data:\n  .dockerconfigjson: " + b64(`{"auths":{"registry.acme.io":{"auth":"`+b64("bot:RegistryPa55")+`"}}}`) + "\n", b64(`{"auths":{"registry.acme.io":{"auth":"` + b64("bot:RegistryPa55") + `"}}}`), ".dockerconfigjson:"}},
	{"base64", Case{"env file", "CONFIG_B64=" + b64("DB_PASSWORD=hunter2hunter2\nDB_HOST=db.internal\n") + " ./run", b64("DB_PASSWORD=hunter2hunter2\nDB_HOST=db.internal\n"), "./run"}},
	{"base64", Case{"URL-safe alphabet", "blob " + strings.TrimRight(base64.URLEncoding.EncodeToString([]byte("export OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z")), "=") + " end", "c2stcHJvai1BYjNkRWY2aElqOWtMbTJuT3A1cVJzOHRVdjF3WHk0eg", " end"}},
	// cloud key files: the key goes, its id stays (see Shown)
	{"cloud key file", Case{"GCP service account", `{"type":"service_account","project_id":"acme","private_key_id":"3f2a9c1d7e884b21a0c5d6e7f8091a2b3c4d5e6f","private_key":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n","client_email":"ci@acme.iam.gserviceaccount.com"}`, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", "3f2a9c1d7e884b21a0c5d6e7f8091a2b3c4d5e6f"}},
	{"cloud key file", Case{"AWS STS credentials", `{"Credentials":{"AccessKeyId":"ASIAY34FZKBOKMUTVV7A","SecretAccessKey":"je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY","SessionToken":"FwoGZXIvYXdzEBYaDHqa0AP1cG7cqiLxSKwAa8K9e4JpW3yB8vH2bXqz0uN3mE"}}`, "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY", "ASIAY34FZKBOKMUTVV7A"}},
	{"cloud key file", Case{"Azure service principal", `{"appId":"0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9","displayName":"ci","password":"Az~Sp8Q~s3cr3tValue.x","tenant":"11111111-2222-3333-4444-555555555555"}`, "Az~Sp8Q~s3cr3tValue.x", "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9"}},
}

// Shown are identifiers a responder acts on: Keep (the identifier) must
// stay; Secret, when set, is the secret beside it, which must go.
var Shown = []Case{
	{"aws key id on a command line", "aws s3 cp --profile x AKIAIOSFODNN7EXAMPLE s3://bucket", "", "AKIAIOSFODNN7EXAMPLE"},
	{"aws key id beside its secret", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AKIAIOSFODNN7EXAMPLE"},
	{"aws key id after a secret word", "revoked the key AKIAEVAL611EXAMPLE01 (secret rotated)", "", "AKIAEVAL611EXAMPLE01"},
	{"aws key id assigned", "export AWS_ACCESS_KEY=AKIAEVAL611EXAMPLE01", "", "AKIAEVAL611EXAMPLE01"},
	{"aws temporary key id", "creds ASIAY34FZKBOKMUTVV7A in env", "", "ASIAY34FZKBOKMUTVV7A"},
	{"aws user id", `"userIdentity":{"principalId":"AIDAEVALSHARED000042","accessKeyId":"AKIAEVAL611EXAMPLE01"}`, "", "AIDAEVALSHARED000042"},
	{"presigned url's credential", "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261014%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024", "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024", "AKIAIOSFODNN7EXAMPLE"},
	{"service account", "kubectl auth can-i --as=system:serviceaccount:vault-secret:token-reader list secrets", "", "system:serviceaccount:vault-secret:token-reader"},
	{"service account beside its token", "user=system:serviceaccount:agent-evals:sb-201-runner token=Zk8mQ2rT7vX1bN4cF6hJ9pL3sD5gW0yE2uA8", "Zk8mQ2rT7vX1bN4cF6hJ9pL3sD5gW0yE2uA8", "system:serviceaccount:agent-evals:sb-201-runner"},
	{"github hashed token", `{"action":"git.push","hashed_token":"FTij8Jq1D+pBcKERf0BSlYlF+A542UwMctdoVkzOHKg=","token_id":81234567}`, "", "FTij8Jq1D+pBcKERf0BSlYlF+A542UwMctdoVkzOHKg="},
	{"github token id", `{"action":"git.push","hashed_token":"FTij8Jq1D+pBcKERf0BSlYlF+A542UwMctdoVkzOHKg=","token_id":81234567}`, "", `"token_id":81234567`},
	{"ssh key fingerprint", "removed key fingerprint SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 from authorized_keys", "", "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8"},
	{"gcp key id", `{"private_key_id":"3f2a9c1d7e884b21a0c5d6e7f8091a2b3c4d5e6f","private_key":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"}`, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", "3f2a9c1d7e884b21a0c5d6e7f8091a2b3c4d5e6f"},
	{"mounted secret's path", "read mounted secrets (/run/secrets, /var/run/secrets) (/run/secrets/eval/s-228/allowlist.txt)", "", "/run/secrets/eval/s-228/allowlist.txt"},
	{"paths near a secret word", "secret files: /run/secrets/eval/s-231/proxy.env, /run/secrets/eval/s-228/proxy.env", "", "/run/secrets/eval/s-231/proxy.env, /run/secrets/eval/s-228/proxy.env"},
	{"working directory", "PWD=/home/agent/work/gallery-thumbnailer OLDPWD=/home/agent", "", "PWD=/home/agent/work/gallery-thumbnailer"},
	{"key file option", "ansible-playbook site.yml --private-key ~/.ssh/deploy_ed25519 -u ops", "", "~/.ssh/deploy_ed25519"},
}

// NotSecrets are texts that hold no secret although a pattern's words
// are there: they must come out unchanged.
var NotSecrets = []Case{
	{"mysql -p prompts", "mysql -u root -p appdb", "", ""},
	{"ports", "ssh -p 2222 ops@host; docker run -p 8080:80 nginx; mysql -P 3306 -h db", "", ""},
	{"openssl -keyout", "openssl req -new -newkey rsa:2048 -nodes -keyout key.pem -out req.csr", "", ""},
	{"prompting flags", "psql --no-password -h db app; gh auth login --with-token < token.txt", "", ""},
	{"password read from a file", "docker login --password-stdin -u bot registry.example.com; openssl rsa -passin file:/run/pw -in k.pem", "", ""},
	{"bypass", "proxy:\n  bypass: internal.example.com\n", "", ""},
	{"compass", "compass: north-east", "", ""},
	{"/etc/passwd", "cat: /etc/passwd: permission denied", "", ""},
	{"mailto", "contact mailto:security@example.com", "", ""},
	{"image digest", "image nginx:1.25@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "", ""},
	{"base64 of plain text", "note " + b64("this is an ordinary note about the build"), "", ""},
	{"base64 of a key id", "blob " + b64("key id AKIAIOSFODNN7EXAMPLE for the build"), "", ""},
	{"clock times", "10:00:05 started; 2026-10-14T10:33:40Z done at 10:35:05:", "", ""},
	{"ipv6", "from 2001:4860:4860:0:0:0:0:8888 and fe80::1", "", ""},
	{"max tokens", "--max-tokens 1000 --token-file /run/t", "", ""},
}
