package redact

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/redact/redacttest"
	"github.com/lucasjones/reggen"
	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	gitleaks "github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

func TestRedactIssueForms(t *testing.T) {
	for _, c := range redacttest.IssueForms {
		var r Redactor
		got := r.Redact(c.Text)
		if strings.Contains(got, c.Secret) || r.Count() == 0 {
			t.Errorf("%s: secret survived: %q", c.Name, got)
		}
		if c.Keep != "" && !strings.Contains(got, c.Keep) {
			t.Errorf("%s: context %q lost: %q", c.Name, c.Keep, got)
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
				if ShownKind(f.Secret) != "" {
					// an identifier a responder acts on (an AWS access
					// key id): gitleaks reports it, cordon shows it
					if got := Redact(example, nil); !strings.Contains(got, f.Secret) {
						t.Errorf("%s: identifier %q hidden in %q", id, f.Secret, got)
					}
					continue
				}
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

// BenchmarkLoadCorpus is the one-off cost of reading and compiling
// gitleaks' default rules, paid by the first redaction of a process.
func BenchmarkLoadCorpus(b *testing.B) {
	for b.Loop() {
		if _, err := loadCorpus(); err != nil {
			b.Fatal(err)
		}
	}
}
