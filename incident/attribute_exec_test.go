package incident

import (
	"strings"
	"testing"
)

// The pod a kubectl exec runs in, from the command line as the kill
// switch journals it; other commands name none.
func TestExecPod(t *testing.T) {
	for argv, want := range map[string]string{
		"kubectl exec -n agent-evals sandbox-sb-118 -- kill 182095":            "agent-evals/sandbox-sb-118",
		"kubectl --namespace=ci exec -it pod/nightly-sync-x7k2p -c main -- sh": "ci/nightly-sync-x7k2p",
		"/usr/local/bin/kubectl exec web-0 -- ps":                              "default/web-0",
		"kubectl delete pod -n agent-evals sandbox-sb-118":                     "",
		"kubectl -n x get pods":                                                "",
		"ssh host kubectl exec a":                                              "",
	} {
		if got := execPod(strings.Fields(argv)); got != want {
			t.Errorf("%s: %q, want %q", argv, got, want)
		}
	}
}
