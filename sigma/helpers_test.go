package sigma

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// loadText loads one Sigma file written in the test with the built-in
// pipeline.
func loadText(t *testing.T, text string) *Set {
	t.Helper()
	file := filepath.Join(t.TempDir(), "rule.yml")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := Load(nil, file)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// mustLoad loads a file that must give rules and no refusal.
func mustLoad(t *testing.T, text string) []detect.Rule {
	t.Helper()
	set := loadText(t, text)
	for _, r := range set.Refused {
		t.Errorf("refused: %v", r)
	}
	if len(set.Rules) == 0 {
		t.Fatal("no rule loaded")
	}
	return set.Rules
}

// scan runs rules in cordon's engine over events.
func scan(t *testing.T, rules []detect.Rule, evs []evidence.Event) []detect.Finding {
	t.Helper()
	e := &detect.Engine{Rules: rules}
	res, err := e.Scan(context.Background(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings
}

var t0 = time.Date(2026, 8, 11, 9, 0, 0, 0, time.UTC)

// exec is a Tetragon-like process execution of agent a at t0+sec.
func exec(id, agent string, sec int, cmdline string) evidence.Event {
	return evidence.Event{ID: id, Time: t0.Add(time.Duration(sec) * time.Second), Source: evidence.SourceSensor,
		Format: "tetragon", Kind: evidence.KindProcExec, Agent: agent, Cmdline: cmdline, User: "agent",
		Message: "exec " + cmdline}
}

// request is a proxy request of agent a at t0+sec.
func request(id, agent string, sec int, method, url, host string) evidence.Event {
	return evidence.Event{ID: id, Time: t0.Add(time.Duration(sec) * time.Second), Source: evidence.SourceProxy,
		Format: "squid", Kind: evidence.KindNetRequest, Agent: agent, Method: method, URL: url, DstHost: host,
		SrcIP: "10.0.3.7", Status: "200", Message: method + " " + url}
}

// fired returns the events of the findings of one detector.
func fired(fs []detect.Finding, detector string) []string {
	var ids []string
	for _, f := range fs {
		if f.Detector == detector {
			ids = append(ids, f.Events...)
		}
	}
	return ids
}
