package inspect_test

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/ingest/inspect"
)

// Inspect tool calls and sandbox reads of credential locations are tagged
// cred-read at normalization, as every other source's are; an editor that
// creates the file does not read it.
func TestInspectCredentialReads(t *testing.T) {
	const log = `{"version": 2, "status": "success",
 "eval": {"eval_id": "E2", "run_id": "R2", "created": "2026-08-11T09:00:00Z", "task": "t", "task_id": "T2", "model": "openai/gpt-4o"},
 "samples": [{"id": "s-1", "epoch": 1, "input": "x", "metadata": {"agent_id": "agent-40"},
  "events": [
   {"event": "tool", "timestamp": "2026-08-11T09:00:01Z", "id": "c1", "function": "read_file", "arguments": {"file": "/mnt/shared/s-300/.git-credentials"}, "result": "ok"},
   {"event": "tool", "timestamp": "2026-08-11T09:00:02Z", "id": "c2", "function": "text_editor", "arguments": {"command": "view", "path": "/home/agent/.aws/credentials"}, "result": "ok"},
   {"event": "tool", "timestamp": "2026-08-11T09:00:03Z", "id": "c3", "function": "text_editor", "arguments": {"command": "create", "path": "/home/agent/.netrc", "file_text": "x"}, "result": "ok"},
   {"event": "tool", "timestamp": "2026-08-11T09:00:04Z", "id": "c4", "function": "bash", "arguments": {"cmd": "cat /run/secrets/eval/s-300/proxy.env"}, "result": "ok",
    "events": [{"event": "sandbox", "timestamp": "2026-08-11T09:00:04Z", "action": "exec", "cmd": ["bash", "-c", "cat /run/secrets/eval/s-300/proxy.env"], "result": 0}]},
   {"event": "sandbox", "timestamp": "2026-08-11T09:00:05Z", "action": "read_file", "file": "/var/run/secrets/kubernetes.io/serviceaccount/token"}
  ],
  "uuid": "U-2", "completed_at": "2026-08-11T09:01:00Z"}]}`
	c := inspectParse(t, inspect.Options{}, "c.json", []byte(log))
	want := map[string]string{ // kind path -> credential tags
		"tool_call /mnt/shared/s-300/.git-credentials":                    "cred-read,cred-class:git",
		"tool_call /home/agent/.aws/credentials":                          "cred-read,cred-class:aws",
		"tool_call /home/agent/.netrc":                                    "",
		"tool_call /run/secrets/eval/s-300/proxy.env":                     "cred-read,cred-class:proxy",
		"proc_exec /run/secrets/eval/s-300/proxy.env":                     "cred-read,cred-class:proxy",
		"cred_access /var/run/secrets/kubernetes.io/serviceaccount/token": "cred-read,cred-class:kube",
	}
	seen := 0
	for _, ev := range c.Events {
		tags, ok := want[ev.Kind+" "+ev.Path]
		if !ok {
			continue
		}
		seen++
		if got := strings.Join(ev.Tags, ","); got != tags {
			t.Errorf("%s %s: tags %q, want %q", ev.Kind, ev.Path, got, tags)
		}
	}
	if seen != len(want) || len(c.Rejects) != 0 {
		t.Errorf("found %d of %d events (rejects %+v)", seen, len(want), c.Rejects)
	}
}
