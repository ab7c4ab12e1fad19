package assist

import (
	"strings"
	"testing"

	"github.com/lucasjones/reggen"
	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	gitleaks "github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// issueForms are the secrets a red-team pass saw reach the endpoint in
// clear: command lines, a proxy's user field, URL queries, tokens split by
// an invisible character, and provider tokens cordon had no pattern for.
var issueForms = []struct {
	name, text, secret, keep string
}{
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

func TestRedactIssueForms(t *testing.T) {
	for _, c := range issueForms {
		var r Redactor
		got := r.Redact(c.text)
		if strings.Contains(got, c.secret) || r.Count() == 0 {
			t.Errorf("%s: secret survived: %q", c.name, got)
		}
		if c.keep != "" && !strings.Contains(got, c.keep) {
			t.Errorf("%s: context %q lost: %q", c.name, c.keep, got)
		}
	}
}

func TestNormalizeSaysWhatItTookOut(t *testing.T) {
	got := normalize("a\u200bb\x1b[31mc\u202ed\te\n")
	if got != "abcd\te\n [3 invisible or control characters removed]" {
		t.Errorf("normalize: %q", got)
	}
	if got := normalize(`a\u200bb\x1b[31mc \\u200b`); got != `abc \\u200b [2 invisible or control characters removed]` {
		t.Errorf("written escapes: %q", got)
	}
	if s := "plain ascii line\twith tab"; normalize(s) != s {
		t.Errorf("plain text changed: %q", normalize(s))
	}
}

// defaultDetector is gitleaks' own detector over its default rules: it
// says which secret each generated example holds.
func defaultDetector(t testing.TB) (*detect.Detector, gitleaks.Config) {
	t.Helper()
	logging.Logger = zerolog.Nop()
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(gitleaks.DefaultConfig)); err != nil {
		t.Fatal(err)
	}
	var vc gitleaks.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		t.Fatal(err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		t.Fatal(err)
	}
	return detect.NewDetector(cfg), cfg
}

// TestRedactGitleaksExamples: for every rule of gitleaks' default corpus,
// examples are generated from the rule's own expression with the
// generator gitleaks builds its rules' true positives with, gitleaks'
// detector says which secret each one holds, and Redact must hide it.
func TestRedactGitleaksExamples(t *testing.T) {
	ids, err := CorpusRules()
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) < 200 {
		t.Fatalf("only %d gitleaks rules loaded", len(ids))
	}
	det, cfg := defaultDetector(t)
	var noExample []string
	for _, id := range ids {
		rule := cfg.Rules[id]
		g, err := reggen.NewGenerator(rule.Regex.String())
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		found := 0
		for seed := int64(1); seed <= 40 && found < 3; seed++ {
			g.SetSeed(seed)
			example := g.Generate(1)
			for _, f := range det.DetectString(example) {
				if f.RuleID != id || f.Secret == "" {
					continue
				}
				found++
				if got := Redact(example, nil); strings.Contains(got, f.Secret) {
					t.Errorf("%s: secret %q survived in %q", id, f.Secret, got)
				}
				// The same secret as evidence text: quoted in a command line.
				line := "tool_call run_shell cmd=" + example + " exit=0"
				if got := Redact(line, nil); strings.Contains(got, f.Secret) {
					t.Errorf("%s: secret %q survived in the line %q", id, f.Secret, got)
				}
			}
		}
		if found == 0 {
			noExample = append(noExample, id)
		}
	}
	// A rule whose expression the generator cannot satisfy together with
	// its entropy floor and allowlists gets no example; they must stay few.
	if len(noExample) > len(ids)/20 {
		t.Errorf("%d rules got no example: %v", len(noExample), noExample)
	} else if len(noExample) > 0 {
		t.Logf("no generated example for %v", noExample)
	}
}

// BenchmarkRedactPacket is redaction's cost for one packet: the default
// budget's worth of evidence lines (about 80), a few of them holding
// secrets, as BuildPacket redacts them (every field of every event).
func BenchmarkRedactPacket(b *testing.B) {
	lines := packetLines()
	b.ReportAllocs()
	for b.Loop() {
		var r Redactor
		for _, l := range lines {
			r.Redact(l)
		}
	}
}

// packetLines are the fields of a default-budget packet's events: the
// fixture incident's messages and targets, repeated to 80 events.
func packetLines() []string {
	var lines []string
	evs := incidentEvents()
	for len(lines) < 80*3 {
		for _, ev := range evs {
			lines = append(lines, ev.Message, ev.Target(), ev.Agent+" "+ev.Kind+" "+ev.Decision)
		}
	}
	lines = append(lines, issueForms[0].text, issueForms[5].text, issueForms[14].text, secretCases[3].text)
	return lines
}

// BenchmarkLoadCorpus is the one-off cost of reading and compiling
// gitleaks' default rules, paid by the first redaction of a process.
func BenchmarkLoadCorpus(b *testing.B) {
	for b.Loop() {
		if _, err := loadCorpus(); err != nil {
			b.Fatal(err)
		}
	}
}
