package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The OCSF, STIX and indicator outputs from the command line.
func TestExportFormatsAndIndicators(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "case")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "credential-theft")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	code, out, errOut := cordon("export", "--incident", dir, "--format", "ocsf")
	first, _, _ := strings.Cut(out, "\n")
	var f struct {
		ClassUID int `json:"class_uid"`
		Metadata struct {
			Product struct{ Version string }
		}
	}
	if code != 0 || json.Unmarshal([]byte(first), &f) != nil || f.ClassUID != 2004 || !strings.Contains(errOut, "findings exported") {
		t.Errorf("ocsf: %d %.200s %s", code, out, errOut)
	}
	// the export names the cordon that wrote it, as cordon version does
	if want := cordonVersion(); want == "" || f.Metadata.Product.Version != want {
		t.Errorf("ocsf product version %q, want %q", f.Metadata.Product.Version, want)
	}
	code, out, errOut = cordon("export", "--incident", dir, "--format", "stix")
	var b struct {
		Type    string `json:"type"`
		Objects []any  `json:"objects"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &b) != nil || b.Type != "bundle" || len(b.Objects) == 0 {
		t.Errorf("stix: %d %.200s %s", code, out, errOut)
	}
	if !strings.Contains(out, "built by cordon "+cordonVersion()+": cordon export --incident ") {
		t.Errorf("the stix identity does not say what wrote it: %.400s", out)
	}
	if code, _, errOut := cordon("export", "--incident", dir, "--format", "stix", "agent:agent-12"); code != exitUsage {
		t.Errorf("a query with stix: %d %s", code, errOut)
	}
	code, out, _ = cordon("indicators", "--incident", dir, "--json")
	var in struct {
		Kind, Value, Origin string
		Findings            []string
	}
	first, _, _ = strings.Cut(out, "\n")
	if code != 0 || json.Unmarshal([]byte(first), &in) != nil || in.Value != "px-s228" || in.Origin != "acquired" || len(in.Findings) == 0 {
		t.Errorf("indicators: %d %.300s", code, out)
	}
}

// --no-redact is journaled before anything unredacted is written, and
// says so on stderr.
func TestNoRedactIsJournaled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "case")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "credential-theft")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	if code, _, errOut := cordon("report", "--incident", dir, "--no-redact"); code != 0 || !strings.Contains(errOut, "written unredacted (journaled)") {
		t.Fatalf("report --no-redact: %d %s", code, errOut)
	}
	code, out, _ := cordon("journal", "--incident", dir, "--type", "unredacted_output")
	if code != 0 || !strings.Contains(out, "the report written unredacted") {
		t.Errorf("journal: %d %s", code, out)
	}
}
