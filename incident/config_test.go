package incident_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/playbook"
)

func TestLoadPlaybookFromConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	custom := func(id string) string {
		return "id: " + id + "\ntitle: " + id + "\nphases:\n  - id: detect\n    title: Detect\n    steps:\n      - id: detect.look\n        title: Look\n"
	}
	load := func(yaml string) (*playbook.Playbook, error) {
		t.Helper()
		write("cordon.yaml", yaml)
		c, err := incident.LoadConfig(dir, false)
		if err != nil {
			return nil, err
		}
		return c.LoadPlaybook()
	}
	if pb, err := load(""); err != nil || pb.ID != "agent-containment" {
		t.Errorf("default: %v %v", pb, err)
	}
	write("playbooks/a.yaml", custom("ours"))
	if pb, err := load("playbook: playbooks\n"); err != nil || pb.ID != "ours" {
		t.Errorf("a folder of one: %v %v", pb, err)
	}
	write("playbooks/b.yaml", custom("theirs"))
	if _, err := load("playbook: playbooks\n"); !errors.Is(err, incident.ErrConfig) || !strings.Contains(err.Error(), "agent-containment, ours, theirs") {
		t.Errorf("a folder of two without playbook_id: %v", err)
	}
	if pb, err := load("playbook: playbooks\nplaybook_id: theirs\n"); err != nil || pb.ID != "theirs" {
		t.Errorf("playbook_id: %v %v", pb, err)
	}
	if pb, err := load("playbook: playbooks\nplaybook_id: agent-containment\n"); err != nil || pb.ID != "agent-containment" {
		t.Errorf("the built-in one by id: %v %v", pb, err)
	}
	if pb, err := load("playbook: playbooks/a.yaml\n"); err != nil || pb.ID != "ours" {
		t.Errorf("a file: %v %v", pb, err)
	}
	write("bad.yaml", "id: x\n")
	if _, err := load("playbook: bad.yaml\n"); err == nil || !strings.Contains(err.Error(), "bad.yaml:") {
		t.Errorf("a bad playbook names the file and line: %v", err)
	}
}
