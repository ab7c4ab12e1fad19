package assist

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/detect"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./assist -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", name, path, got, want)
	}
}

func TestOfflineGolden(t *testing.T) {
	st := openStore(t, incidentEvents())
	findings := []detect.Finding{probeFinding()}
	p := mustPacket(t, st, Selection{Findings: findings, All: true}, Budget{})
	for _, task := range []Task{TaskSummarize, TaskTimeline} {
		res, err := Offline(task, p, findings)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Offline || !res.Answer.Offline || res.Answer.Uncited() != 0 {
			t.Errorf("%s: offline %v, %d uncited claims", task, res.Offline, res.Answer.Uncited())
		}
		golden(t, "offline_"+string(task), res.Answer.Text())
		again, _ := Offline(task, p, findings)
		if again.Answer.Text() != res.Answer.Text() {
			t.Errorf("%s: not deterministic", task)
		}
	}
}

func TestOfflineOtherTasks(t *testing.T) {
	for _, task := range []Task{TaskCluster, TaskExplain, TaskHypotheses, TaskAsk} {
		if _, err := Offline(task, Packet{}, nil); !errors.Is(err, ErrNeedsEndpoint) {
			t.Errorf("%s: %v", task, err)
		}
	}
	if _, err := Offline("chat", Packet{}, nil); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("unknown task: %v", err)
	}
	res, err := Offline(TaskSummarize, Packet{}, nil)
	if err != nil || len(res.Answer.Claims) != 0 || res.Answer.Notes == "" {
		t.Errorf("empty packet: %v %+v", err, res.Answer)
	}
}
