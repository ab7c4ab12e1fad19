package incident

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/journal"
)

// journaledExecs gives the identity map the `kubectl exec` commands the
// kill switch ran (action_run entries, dry runs aside): what they start in
// the pod is the responder's who ran them, as for an exec the API server
// logged.
func (w *Workspace) journaledExecs(id *attribution.Identity) {
	entries, err := w.journal.Entries()
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type != journal.EntryActionRun || len(e.Payload) == 0 {
			continue
		}
		var p ActionPayload
		if json.Unmarshal(e.Payload, &p) != nil || p.DryRun {
			continue
		}
		// the entry is written after the runs: each began its took earlier
		start := e.Time
		for _, r := range p.Runs {
			start = start.Add(-r.Took)
		}
		for _, r := range p.Runs {
			if pod := execPod(r.Argv); pod != "" && !r.DryRun {
				id.AddExec(pod, start.Add(-time.Second), e.Actor.Name)
			}
			start = start.Add(r.Took)
		}
	}
}

// execPod is the pod (namespace/name) a `kubectl exec` command line runs
// in, "" for any other command.
func execPod(argv []string) string {
	if len(argv) < 3 || !strings.HasSuffix(argv[0], "kubectl") {
		return ""
	}
	ns, pod, exec := "", "", false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			i = len(argv)
		case a == "-n" || a == "--namespace":
			if i+1 < len(argv) {
				ns = argv[i+1]
				i++
			}
		case strings.HasPrefix(a, "--namespace="):
			ns = strings.TrimPrefix(a, "--namespace=")
		case a == "-c" || a == "--container":
			i++
		case strings.HasPrefix(a, "-"):
		case !exec:
			exec = a == "exec"
			if !exec {
				return ""
			}
		case pod == "":
			pod = strings.TrimPrefix(a, "pod/")
		}
	}
	if pod == "" {
		return ""
	}
	if ns == "" {
		ns = "default"
	}
	return ns + "/" + pod
}
