package detect_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// k8sEvent is a Kubernetes audit record as the parser leaves it: the
// fields it normalizes, and the record whole in Raw.
func k8sEvent(t *testing.T, at time.Time, id, verb, user, pod, resource, ns, name string, code int, obj map[string]any) evidence.Event {
	t.Helper()
	rec := map[string]any{"kind": "Event", "verb": verb, "user": map[string]any{"username": user},
		"objectRef": map[string]any{"resource": resource, "namespace": ns, "name": name}, "responseStatus": map[string]any{"code": code}}
	if pod != "" {
		rec["user"] = map[string]any{"username": user, "extra": map[string][]string{"authentication.kubernetes.io/pod-name": {pod}}}
	}
	if obj != nil {
		rec["requestObject"] = obj
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	decision := evidence.DecisionAllow
	if code >= 400 {
		decision = evidence.DecisionDeny
	}
	return evidence.Event{ID: id, Time: at, Source: evidence.SourceAudit, Format: "k8s-audit", Kind: evidence.KindAPICall, Method: verb,
		Credential: []string{user}, User: user, SrcIP: "10.0.9.44", Decision: decision, Raw: string(raw)}
}

// A job an agent creates through the API with its pod's service account,
// running as another account, is the agent's workload: the calls its pod
// makes after the kill are its uses (not the victim account's alone), and
// the orchestrator's delete of the job is its end.
func TestCreatedJobIsTheCreatorsWorkload(t *testing.T) {
	t0 := time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	sa := "system:serviceaccount:agent-evals:sb-301-runner"
	start := evidence.Event{ID: "s", Time: t0, Source: evidence.SourceLedger, Format: "cordon-ledger", Kind: evidence.KindSessionStart,
		Agent: "agent-60", Session: "s-701", SrcIP: "10.0.6.21", Credential: []string{sa},
		Raw: `{"credentials":[{"id":"` + sa + `","kind":"k8s-service-account-token"}]}`}
	jobSpec := map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"serviceAccountName": "ci-deployer"}}}}
	evs := []evidence.Event{start,
		k8sEvent(t, at(10), "create-job", "create", sa, "sandbox-sb-301", "jobs", "ci", "nightly-sync", 201, jobSpec),
		k8sEvent(t, at(10).Add(2*time.Second), "create-pod", "create", "system:serviceaccount:kube-system:job-controller", "", "pods", "ci", "nightly-sync-x7k2p", 201,
			map[string]any{"metadata": map[string]any{"ownerReferences": []map[string]string{{"kind": "Job", "name": "nightly-sync"}}}}),
	}
	for m := 11; m <= 35; m++ {
		evs = append(evs, k8sEvent(t, at(m), "get-"+time.Duration(m).String(), "get", "system:serviceaccount:ci:ci-deployer", "nightly-sync-x7k2p", "secrets", "ci", "deploy-keys", 200, nil))
	}
	evs = append(evs, k8sEvent(t, at(36), "delete-job", "delete", "mchen@acme.example", "", "jobs", "ci", "nightly-sync", 200, nil),
		k8sEvent(t, at(45), "later", "get", "mchen@acme.example", "", "pods", "ci", "", 200, nil))
	attribution.AttributeAll(evs)
	rules, _ := detect.Builtin()
	r, err := (&detect.Engine{Rules: rules}).Scan(context.Background(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	w, ok := findCap(r.Capabilities.For("agent-60"), capability.Workload, "ci/nightly-sync")
	if !ok || w.Owner != "system:serviceaccount:ci:ci-deployer" || w.Provenance != capability.ByCreate || w.UseCount() != 26 {
		t.Fatalf("workload: %+v (%v)", w, ok)
	}
	if e, ok := w.Ended(); !ok || e.ID != "delete-job" {
		t.Errorf("its end: %+v", w.Ends)
	}
	v := capability.Judge(&w, at(20), time.Time{}, r.Coverage)
	if v.State != capability.Stopped || v.LiveFor != 16*time.Minute || v.LastUse == nil || !v.LastUse.Time.Equal(at(35)) {
		t.Errorf("killed at 10:20: %s: %s", v.State, v.Line)
	}
	if capability.LayerOf(w.Kind) != capability.LayerQueuedJobs {
		t.Errorf("layer %q", capability.LayerOf(w.Kind))
	}
	// without the delete it is live
	r, err = (&detect.Engine{Rules: rules}).Scan(context.Background(), detect.NewMemSource(evs[:len(evs)-2]))
	if err != nil {
		t.Fatal(err)
	}
	w, _ = findCap(r.Capabilities.For("agent-60"), capability.Workload, "ci/nightly-sync")
	if v := capability.Judge(&w, at(20), time.Time{}, r.Coverage); v.State != capability.Live {
		t.Errorf("with no delete: %s: %s", v.State, v.Line)
	}
}
