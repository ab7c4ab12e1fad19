package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/report"
)

// rendered is a report as a reader gets it: Markdown, HTML with its
// pictures, JSON, and the indicator register (value and how, per line).
type rendered struct{ md, html, json, indicators string }

func render(t *testing.T, dir string, opts ...report.Option) rendered {
	t.Helper()
	ctx := context.Background()
	ws := incidenttest.New(t, dir)
	r, err := report.Build(ctx, ws, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var md, html bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Pictures() {
		html.WriteString(p.SVG)
	}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	ins, _, err := report.RedactedIndicators(ctx, ws, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var ib strings.Builder
	for _, in := range ins {
		ib.WriteString(in.Kind + " " + in.Value + " " + in.How + "\n")
	}
	return rendered{md: md.String(), html: html.String(), json: string(js), indicators: ib.String()}
}

func (r rendered) each(f func(name, text string)) {
	f("markdown", r.md)
	f("html", r.html)
	f("json", r.json)
	f("indicators", r.indicators)
}

// sampleWithSecret copies a bundled sample and writes a secret into one
// of its ledger records, next to what the record already says, so that a
// test can tell a report that hides it from one that never quotes it.
func sampleWithSecret(t *testing.T, sample, record, add string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), sample)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "sample-incidents", sample))); err != nil {
		t.Fatal(err)
	}
	ledger := filepath.Join(dir, "ledger.jsonl")
	b, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(record)) {
		t.Fatalf("%s: no record holding %q", sample, record)
	}
	if err := os.WriteFile(ledger, bytes.Replace(b, []byte(record), []byte(record+add), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Regression (issue 33, the report's redaction): the access key ids and
// service accounts a responder has to deactivate were replaced by
// placeholders in the report of cloud-key-after-kill. They are shown in
// every rendering, while the secret key written beside one stays hidden.
func TestReportShowsKeyIDsNotTheirSecrets(t *testing.T) {
	const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	dir := sampleWithSecret(t, "cloud-key-after-kill", `"note":"deactivated in IAM at 11:18:31`, " (its secret access key was "+secret+")")
	ids := []string{"AKIAEVAL611EXAMPLE01", "AKIAEVAL614EXAMPLE02", "system:serviceaccount:agent-evals:sb-201-runner", "system:serviceaccount:agent-evals:sb-203-runner"}

	got, raw := render(t, dir), render(t, dir, report.Unredacted())
	rawText := map[string]string{}
	raw.each(func(name, text string) { rawText[name] = text })
	got.each(func(name, text string) {
		for _, id := range ids {
			if want, n := strings.Count(rawText[name], id), strings.Count(text, id); n != want || want == 0 {
				t.Errorf("%s: the identifier %s shown %d times, unredacted %d", name, id, n, want)
			}
		}
		if strings.Contains(text, secret) || strings.Contains(text, secret[:20]) {
			t.Errorf("%s shows the secret access key", name)
		}
	})
	if !regexp.MustCompile(`AKIAEVAL611EXAMPLE01 deactivated in IAM at 11:18:31 \(its secret access key was \\?\[SECRET-[0-9a-f]{10}\\?\]\)`).MatchString(got.md) {
		t.Errorf("the revocation's note does not show the key id beside its secret's placeholder")
	}
	// Unredacted, the same report quotes the secret: the check above is on
	// text that holds it.
	if !strings.Contains(raw.md, secret) {
		t.Fatalf("the unredacted report does not quote the note with the secret")
	}
}

// Regression (issue 33): the credential files credential-theft's agent
// read were shown as "[SECRET-…].txt" in the report's impact and
// capability lines, because the entropy rule took a path near the word
// "secrets" for a secret. Every mention of them is shown as the
// unredacted report shows it.
func TestReportShowsPlainPaths(t *testing.T) {
	dir := filepath.Join("..", "sample-incidents", "credential-theft")
	got, raw := render(t, dir), render(t, dir, report.Unredacted())
	paths := []string{"/run/secrets/eval/s-228/allowlist.txt", "/run/secrets/eval/s-228/proxy.env", "/run/secrets/eval/s-231/proxy.env"}
	rawText := map[string]string{}
	raw.each(func(name, text string) { rawText[name] = text })
	got.each(func(name, text string) {
		for _, p := range paths {
			// the register names the files it has an indicator for
			if want, n := strings.Count(rawText[name], p), strings.Count(text, p); n != want || want == 0 && name != "indicators" {
				t.Errorf("%s: %s shown %d times, unredacted %d", name, p, n, want)
			}
		}
		if m := regexp.MustCompile(`SECRET-[0-9a-f]+\\?\]\.(?:txt|env)`).FindString(text); m != "" {
			t.Errorf("%s: a file's name redacted: %s", name, m)
		}
	})
}

// No indicator of any bundled sample that is a file path or an
// identifier (an access key id, a service account, a key fingerprint) is
// redacted in the register a responder hands on.
func TestIndicatorIdentifiersAreShownInEverySample(t *testing.T) {
	ctx := context.Background()
	shape := regexp.MustCompile(`^(?:/|~/)|^(?:AKIA|ASIA)[A-Z0-9]{16}$|^system:serviceaccount:|^SHA256:`)
	checked := 0
	for _, s := range incidenttest.Samples(t) {
		ws := incidenttest.New(t, s)
		raw, err := report.Indicators(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		red, _, err := report.RedactedIndicators(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		shown := map[string]bool{}
		for _, in := range red {
			shown[in.Value] = true
		}
		for _, in := range raw {
			if !shape.MatchString(in.Value) {
				continue
			}
			checked++
			if !shown[in.Value] {
				t.Errorf("%s: the %s indicator %s is redacted", filepath.Base(s), in.Kind, in.Value)
			}
		}
	}
	// cloud-key-after-kill alone has two key ids and two service
	// accounts, credential-theft its credential files.
	if checked < 8 {
		t.Errorf("only %d path or identifier indicators in the samples", checked)
	}
	t.Logf("%d path and identifier indicators checked", checked)
}
