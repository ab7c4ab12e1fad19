package eval

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/sample-incidents/truth"
)

// The sample workspaces are built once per test binary: ingesting a
// sample takes seconds on two cores.
var (
	samplesDir  string
	sampleMu    sync.Mutex
	sampleCards = map[string]*Scorecard{}
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cordon-eval-samples-")
	if err != nil {
		panic(err)
	}
	samplesDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var tester = journal.Actor{Name: "eval-test", Via: journal.ViaCLI}

// sampleWorkspace ingests sample-incidents/NAME into a fresh workspace
// and, where its truth has an agent killed, records that kill as the
// responder would (contain.stop done at the session's end): the case's
// Assessment then judges the killed agent.
func sampleWorkspace(t *testing.T, name string) *incident.Workspace {
	t.Helper()
	ctx := context.Background()
	src := filepath.Join("..", "sample-incidents", name)
	tr, err := truth.Load(filepath.Join(src, "truth.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := incident.Create(filepath.Join(samplesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ws.Ingest(ctx, []string{src}, incident.IngestOptions{Actor: tester})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Path, r.Err)
		}
	}
	for _, s := range tr.Sessions {
		if s.EndReason == "killed" {
			if _, err := ws.SetSubject(ctx, tester, []string{s.Agent}); err != nil {
				t.Fatal(err)
			}
			if _, err := ws.SetStep(ctx, tester, "contain.stop", incident.StepDone, s.End, "killed"); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	return ws
}

// sampleCard is the built-in suite's scorecard of a sample, scored once.
func sampleCard(t *testing.T, name string) *Scorecard {
	t.Helper()
	sampleMu.Lock()
	defer sampleMu.Unlock()
	if sc, ok := sampleCards[name]; ok {
		return sc
	}
	ws := sampleWorkspace(t, name)
	defer ws.Close()
	s, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Score(context.Background(), ws, s)
	if err != nil {
		t.Fatal(err)
	}
	sampleCards[name] = sc
	return sc
}

func (sc *Scorecard) test(t *testing.T, id string) TestResult {
	t.Helper()
	for _, tr := range sc.Tests {
		if tr.ID == id {
			return tr
		}
	}
	t.Fatalf("%s: no test %s", sc.Incident, id)
	return TestResult{}
}

func (tr TestResult) control(t *testing.T, name string) ControlResult {
	t.Helper()
	for _, c := range tr.Controls {
		if c.Control == name {
			return c
		}
	}
	t.Fatalf("%s: no control %q", tr.ID, name)
	return ControlResult{}
}
