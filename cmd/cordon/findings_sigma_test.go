package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindingsWithSigmaRules(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inc")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "egress-probe-exfil")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	rules := filepath.Join("..", "..", "sigma", "testdata")
	code, out, errOut := cordon("findings", "--incident", dir, "--json", "--sigma", rules)
	if code != 0 {
		t.Fatalf("findings: %d %s", code, errOut)
	}
	// refused rules are named with their place and reason, and the rest run
	if !strings.Contains(errOut, "proxy_hktl_cobalt_strike_malleable_c2_requests.yml:33:9:") || !strings.Contains(errOut, `field "cs-cookie" is not mapped`) {
		t.Errorf("stderr does not name the refused rules:\n%s", errOut)
	}
	// and the rules no source can feed, as loaded
	if !strings.Contains(errOut, "sigma: loaded, can never fire: ") || !strings.Contains(errOut, "net_connection_lnx_ngrok_tunnel.yml:1:1") {
		t.Errorf("stderr does not name the rules no source feeds:\n%s", errOut)
	}
	found := false
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var f struct{ Detector, Title, Agent, Severity, Explanation string }
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if f.Detector == "7c1f0f9e-5b1a-4d3e-9a51-0c2b8f6d4e01" {
			found = true
			if f.Agent != "agent-7" || f.Severity != "high" || f.Title != "Connection to a Paste Service" ||
				!strings.Contains(f.Explanation, "Sigma Connection to a Paste Service (high, id 7c1f0f9e-") {
				t.Errorf("paste finding %+v", f)
			}
		}
	}
	if !found {
		t.Errorf("no finding of the paste-service Sigma rule in\n%s", out)
	}
	// the built-in rules run beside them
	if !strings.Contains(out, `"detector":"data-exfiltration"`) {
		t.Error("the built-in rules did not run with --sigma")
	}
	// with their ATT&CK tags, in --json and in the text
	if !strings.Contains(out, `"tags":["attack.exfiltration","attack.t1567","attack.t1048"]`) {
		t.Errorf("no tags on the data-exfiltration finding in\n%s", out)
	}
	if code, text, errOut := cordon("findings", "--incident", dir); code != 0 || !strings.Contains(text, "tags attack.exfiltration, attack.t1567, attack.t1048") {
		t.Errorf("findings: %d %s\n%s", code, errOut, text)
	}
}

func TestSigmaInCordonYAMLRefusesWhatItCannotRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inc")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "egress-probe-exfil")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	abs, _ := filepath.Abs(filepath.Join("..", "..", "sigma", "testdata", "cordon"))
	os.WriteFile(filepath.Join(dir, "cordon.yaml"), []byte("sigma:\n  - "+abs+"\n"), 0o600)
	code, out, errOut := cordon("findings", "--incident", dir, "--json", "--recompute")
	if code != 0 || !strings.Contains(out, `"detector":"7c1f0f9e-5b1a-4d3e-9a51-0c2b8f6d4e01"`) {
		t.Fatalf("findings with sigma in cordon.yaml: %d %s\n%s", code, errOut, out)
	}
	refused, _ := filepath.Abs(filepath.Join("..", "..", "sigma", "testdata", "sigmahq", "proxy"))
	os.WriteFile(filepath.Join(dir, "cordon.yaml"), []byte("sigma:\n  - "+refused+"\n"), 0o600)
	code, _, errOut = cordon("findings", "--incident", dir, "--recompute")
	if code == 0 || !strings.Contains(errOut, "proxy_hktl_cobalt_strike_malleable_c2_requests.yml:33:9") {
		t.Errorf("a refused rule in cordon.yaml: %d %s", code, errOut)
	}
}
