package audit_test

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/audit"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/parsetest"
)

func TestK8sAuditGolden(t *testing.T) {
	c := parsetest.ParseFile(t, audit.NewK8sAudit(audit.Options{}), parsetest.Sample("k8s_audit", "falco-trace-files-k8s-audit.jsonl"))
	if len(c.Events) != 3 || len(c.Rejects) != 0 {
		t.Fatalf("got %d events, %d rejects (%v); want 3 and 0", len(c.Events), len(c.Rejects), c.Rejects)
	}
	parsetest.CheckGolden(t, "falco-trace-files-k8s-audit", c)
}

func k8sOne(t *testing.T, rec string) (evidence.Event, error) {
	t.Helper()
	evs, err := audit.NewK8sAudit(audit.Options{}).Parse(parse.Record{Data: []byte(rec), Line: 1})
	if err != nil {
		return evidence.Event{}, err
	}
	if len(evs) != 1 {
		t.Fatalf("got %d events, want 1", len(evs))
	}
	return evs[0], nil
}

const saUser = `"user":{"username":"system:serviceaccount:agent-evals:sb-52-runner","groups":["system:serviceaccounts","system:authenticated"],` +
	`"extra":{"authentication.kubernetes.io/credential-id":["JTI=2f5c8e0a-52aa-4d0e-9d61-7f3c1b2a9e11"],"authentication.kubernetes.io/pod-name":["sandbox-sb-52"]}}`

func TestK8sAuditServiceAccountToken(t *testing.T) {
	ev, err := k8sOne(t, `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseComplete",`+
		`"requestURI":"/api/v1/namespaces/agent-evals/secrets","verb":"list",`+saUser+`,"sourceIPs":["198.51.100.77","10.0.0.2"],`+
		`"objectRef":{"resource":"secrets","namespace":"agent-evals","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},`+
		`"requestReceivedTimestamp":"2026-10-14T11:20:01.250000Z","stageTimestamp":"2026-10-14T11:20:01.262000Z"}`)
	if err != nil {
		t.Fatal(err)
	}
	if ev.SrcIP != "198.51.100.77" || ev.Method != "list" || ev.Status != "200" || ev.Decision != evidence.DecisionAllow ||
		strings.Join(ev.Credential, ",") != "system:serviceaccount:agent-evals:sb-52-runner,JTI=2f5c8e0a-52aa-4d0e-9d61-7f3c1b2a9e11" ||
		ev.Time.Nanosecond() != 250000000 {
		t.Errorf("%+v", ev)
	}
	// the pod a token was bound to is not where it is used: never a key
	if ev.Pod != "" || ev.Container != "" {
		t.Errorf("bound pod taken as the place of use: pod %q container %q", ev.Pod, ev.Container)
	}
	if want := "k8s list secrets in agent-evals by system:serviceaccount:agent-evals:sb-52-runner (token of pod sandbox-sb-52) from 198.51.100.77 -> 200"; ev.Message != want {
		t.Errorf("message %q\nwant    %q", ev.Message, want)
	}
}

func TestK8sAuditDecisionsAndRevocation(t *testing.T) {
	base := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a1","stage":"ResponseComplete","requestReceivedTimestamp":"2026-10-14T11:20:01Z",` + saUser
	refused, err := k8sOne(t, base+`,"verb":"get","requestURI":"/api/v1/namespaces/agent-evals/pods","objectRef":{"resource":"pods"},"responseStatus":{"code":401,"reason":"Unauthorized"}}`)
	if err != nil || refused.Decision != evidence.DecisionDeny || !strings.Contains(strings.Join(refused.Tags, " "), credentials.TagCredRefused) {
		t.Errorf("401: %v %+v", err, refused)
	}
	forbidden, _ := k8sOne(t, base+`,"verb":"create","requestURI":"/api/v1/namespaces/kube-system/pods","objectRef":{"resource":"pods"},"responseStatus":{"code":403,"reason":"Forbidden"}}`)
	if forbidden.Decision != evidence.DecisionDeny || strings.Contains(strings.Join(forbidden.Tags, " "), credentials.TagCredRefused) {
		t.Errorf("403 refuses the action, not the token: %+v", forbidden)
	}
	del, _ := k8sOne(t, `{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a2","stage":"ResponseComplete","requestReceivedTimestamp":"2026-10-14T11:30:00Z",`+
		`"user":{"username":"oncall@example.org"},"verb":"delete","requestURI":"/api/v1/namespaces/agent-evals/serviceaccounts/sb-52-runner",`+
		`"objectRef":{"resource":"serviceaccounts","namespace":"agent-evals","name":"sb-52-runner"},"responseStatus":{"code":200}}`)
	if got := credentials.Revoked(del.Tags); len(got) != 1 || got[0] != "system:serviceaccount:agent-evals:sb-52-runner" {
		t.Errorf("delete serviceaccount revokes %v", got)
	}
}

// A request's RequestReceived stage and the health probes are counted,
// not indexed; KeepRoutine keeps them.
func TestK8sAuditRoutine(t *testing.T) {
	received := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a1","stage":"RequestReceived","verb":"get","requestURI":"/api/v1/pods","requestReceivedTimestamp":"2026-10-14T11:20:01Z","user":{"username":"u"}}`
	probe := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a3","stage":"ResponseComplete","verb":"get","requestURI":"/readyz","requestReceivedTimestamp":"2026-10-14T11:20:01Z","user":{"username":"system:anonymous"},"responseStatus":{"code":200}}`
	for _, rec := range []string{received, probe} {
		if _, err := k8sOne(t, rec); err != parse.ErrRoutine {
			t.Errorf("%s: %v, want ErrRoutine", rec, err)
		}
		if evs, err := audit.NewK8sAudit(audit.Options{KeepRoutine: true}).Parse(parse.Record{Data: []byte(rec)}); err != nil || len(evs) != 1 {
			t.Errorf("KeepRoutine: %v %d", err, len(evs))
		}
	}
	list := `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[` + received + `,` + strings.Replace(received, "RequestReceived", "ResponseComplete", 1) + `]}`
	evs, err := audit.NewK8sAudit(audit.Options{}).Parse(parse.Record{Data: []byte(list)})
	if err != nil || len(evs) != 1 || !strings.HasPrefix(evs[0].Raw, `{"kind":"Event"`) {
		t.Errorf("EventList: %v %d", err, len(evs))
	}
}

func TestK8sAuditRejectsSayWhy(t *testing.T) {
	for _, tc := range []struct{ rec, reason string }{
		{`not json`, "not a kubernetes audit event"},
		{`{"kind":"Event","auditID":"a","stage":"ResponseComplete"}`, "no verb or stage"},
		{`{"kind":"Event","auditID":"a","stage":"ResponseComplete","verb":"get"}`, "no time"},
		{`{"kind":"Event","auditID":"a","stage":"ResponseComplete","verb":"get","stageTimestamp":"then"}`, "bad time"},
	} {
		_, err := k8sOne(t, tc.rec)
		if err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: error %v, want it to say %q", tc.rec, err, tc.reason)
		}
	}
}

func FuzzK8sAudit(f *testing.F) {
	parsetest.Fuzz(f, audit.NewK8sAudit(audit.Options{}), parsetest.Sample("k8s_audit", "falco-trace-files-k8s-audit.jsonl"))
}
