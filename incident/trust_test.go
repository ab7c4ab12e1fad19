//go:build unix

package incident_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
)

// cordon.yaml that another user could have written is refused as OpenSSH
// refuses its configuration: world-writable always; group-writable unless
// the workspace is shared on purpose, and then its actions never run.
func TestConfigOthersCouldWriteIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cordon.yaml")
	yaml := "actions:\n  revoke:\n    run: revoke-cred {{credential}}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := incident.LoadConfig(dir, false); err != nil {
		t.Fatalf("its owner's own file: %v", err)
	}
	for _, tc := range []struct {
		mode   os.FileMode
		shared bool
		want   string // "" loads
	}{
		{0o602, false, "writable by every user"},
		{0o602, true, "writable by every user"},
		{0o620, false, "writable by its group"},
		{0o620, true, ""},
	} {
		if err := os.Chmod(path, tc.mode); err != nil {
			t.Fatal(err)
		}
		c, err := incident.LoadConfig(dir, tc.shared)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("mode %v shared %v: %v", tc.mode, tc.shared, err)
		case tc.want != "" && (!errors.Is(err, incident.ErrConfig) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("mode %v shared %v: %v, want %q", tc.mode, tc.shared, err, tc.want)
		case tc.want == "":
			// read in a shared workspace, its actions still never run
			if _, err := c.PlanAction("revoke", incident.Case{Subject: []string{"agent-1"}}); err == nil || !strings.Contains(err.Error(), "never run") {
				t.Errorf("an action of a group-writable cordon.yaml: %v", err)
			}
		}
	}
}

// cordon open DIR opens a workspace only when it is one: a folder that
// merely holds an index.bleve is refused, naming what is missing.
func TestOnlyAWorkspaceOpens(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "index.bleve"), 0o700); err != nil {
		t.Fatal(err)
	}
	if incident.IsWorkspace(dir) {
		t.Error("a folder with only an index.bleve is taken for a workspace")
	}
	if _, err := incident.Open(dir); !errors.Is(err, incident.ErrNoIncident) || !strings.Contains(err.Error(), "not a cordon workspace") {
		t.Errorf("open: %v", err)
	}
	ws := incidenttest.New(t)
	if !incident.IsWorkspace(ws.Dir) {
		t.Error("a workspace cordon made is not one")
	}
	if _, err := os.Stat(filepath.Join(ws.Dir, "cordon-workspace")); err != nil {
		t.Errorf("no marker: %v", err)
	}
}

// A handle opened with bounds (a served console's) reads the store through
// them: one answer holds at most MaxHits events, whatever it asks.
func TestHandleReadsWithinItsBounds(t *testing.T) {
	ws := incidenttest.New(t)
	b := evidence.Bounds{MaxHits: 7}
	h, err := ws.Handle(incident.HandleOptions{Bounds: &b})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := h.Search(context.Background(), evidence.Request{Query: evidence.All(), Limit: 50_000})
	if err != nil || hits.Total <= 7 || len(hits.Events) != 7 {
		t.Errorf("%d of %d events (%v), want 7", len(hits.Events), hits.Total, err)
	}
}

// The run of the detectors that served consoles share is not cancelled by
// the console that started it going away: with ShareRuns, a caller whose
// context has ended still gets the shared run; without, it gets its end.
func TestSharedRunOutlivesItsCaller(t *testing.T) {
	ws := incidenttest.New(t)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ws.CachedFindings(gone); !errors.Is(err, context.Canceled) {
		t.Errorf("a lone console's run after it went away: %v", err)
	}
	ws.ShareRuns()
	if fs, err := ws.CachedFindings(gone); err != nil || len(fs) == 0 {
		t.Errorf("the shared run: %d findings, %v", len(fs), err)
	}
}

// The Assessment is kept in the workspace: a later reader with the same
// evidence, subject, kill time and rules reads it without running the
// detectors; a new kill time computes it again.
func TestAssessmentIsKept(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	ctx := context.Background()
	who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}
	if _, err := ws.SetSubject(ctx, who, []string{"agent-12"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.SetStep(ctx, who, "contain.stop", incident.StepDone, time.Date(2026, 8, 11, 10, 21, 3, 0, time.UTC), ""); err != nil {
		t.Fatal(err)
	}
	first, err := ws.Assessment(ctx)
	if err != nil || first.State == "" {
		t.Fatal(first, err)
	}
	dir := ws.Dir
	ws.Close()
	again, err := incident.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	kept, err := again.Assessment(ctx)
	if err != nil || again.DetectorRuns() != 0 || incident.Headline(kept) != incident.Headline(first) {
		t.Errorf("kept: %d runs, %q vs %q (%v)", again.DetectorRuns(), incident.Headline(kept), incident.Headline(first), err)
	}
}
