package audit_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/audit"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/parsetest"
)

func TestK8sAuditGolden(t *testing.T) {
	c := parsetest.ParseFile(t, audit.NewK8sAudit(), parsetest.Sample("k8s_audit", "falco-trace-files-k8s-audit.jsonl"))
	if len(c.Events) != 3 || len(c.Rejects) != 0 {
		t.Fatalf("got %d events, %d rejects (%v); want 3 and 0", len(c.Events), len(c.Rejects), c.Rejects)
	}
	parsetest.CheckGolden(t, "falco-trace-files-k8s-audit", c)
}

func k8sOne(t *testing.T, rec string) (evidence.Event, error) {
	t.Helper()
	evs, err := audit.NewK8sAudit().Parse(parse.Record{Data: []byte(rec), Line: 1})
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

// The health probes are events tagged routine; before, they were counted
// and left out of the index (ErrRoutine).
func TestK8sAuditProbeIsIndexedAndTaggedRoutine(t *testing.T) {
	probe := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a3","stage":"ResponseComplete","verb":"get","requestURI":"/readyz","requestReceivedTimestamp":"2026-10-14T11:20:01Z","user":{"username":"system:anonymous"},"responseStatus":{"code":200}}`
	ev, err := k8sOne(t, probe)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ev.Tags, parse.TagRoutine) || ev.Status != "200" {
		t.Errorf("probe: %+v", ev)
	}
	pods, err := k8sOne(t, strings.Replace(probe, `"/readyz"`, `"/api/v1/pods"`, 1))
	if err != nil || slices.Contains(pods.Tags, parse.TagRoutine) {
		t.Errorf("a list of pods is not routine: %v %v", err, pods.Tags)
	}
}

const received = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a1","stage":"RequestReceived","verb":"get","requestURI":"/api/v1/namespaces/agent-evals/secrets/aws","requestReceivedTimestamp":"2026-10-14T11:20:01.5Z","stageTimestamp":"2026-10-14T11:20:01.5Z","user":{"username":"u"},"sourceIPs":["198.51.100.23"],"objectRef":{"resource":"secrets","namespace":"agent-evals","name":"aws"}}`

func stage(name, status string) string {
	s := strings.Replace(received, "RequestReceived", name, 1)
	s = strings.Replace(s, `"stageTimestamp":"2026-10-14T11:20:01.5Z"`, `"stageTimestamp":"2026-10-14T11:20:02Z"`, 1)
	if status != "" {
		s = strings.TrimSuffix(s, "}") + `,"responseStatus":{"code":` + status + `}}`
	}
	return s
}

// Every stage of a request has the request's id, wherever it is read;
// the earlier ones say their stage.
func TestK8sAuditStagesShareTheRequestsID(t *testing.T) {
	p := audit.NewK8sAudit().(parse.Stager)
	rr, err := k8sOne(t, received)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := k8sOne(t, stage("ResponseComplete", "200"))
	if err != nil {
		t.Fatal(err)
	}
	if rr.ID == "" || rr.ID != rc.ID {
		t.Errorf("ids %q and %q, want one", rr.ID, rc.ID)
	}
	if r, last := p.Stage(&rr); r != 1 || last || !slices.Contains(rr.Tags, parse.TagStage+"RequestReceived") ||
		!strings.HasSuffix(rr.Message, "(stage RequestReceived)") {
		t.Errorf("RequestReceived: rank %d last %v, %v %q", r, last, rr.Tags, rr.Message)
	}
	if r, last := p.Stage(&rc); r != 3 || !last || slices.ContainsFunc(rc.Tags, func(t string) bool { return strings.HasPrefix(t, parse.TagStage) }) {
		t.Errorf("ResponseComplete: rank %d last %v, %v", r, last, rc.Tags)
	}
	other, _ := k8sOne(t, strings.Replace(received, `"a1"`, `"a2"`, 1))
	if other.ID == rr.ID {
		t.Error("two requests share an id")
	}
}

// The stages of one auditID are one event, in a file and in a webhook's
// EventList: the latest stage's answer, the request's time, the last
// stage's record. A stage seen alone is an event too, tagged with its stage.
func TestK8sAuditStagesOfOneRequestAreOneEvent(t *testing.T) {
	probe := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"p1","stage":"ResponseComplete","verb":"get","requestURI":"/readyz","requestReceivedTimestamp":"2026-10-14T11:20:01.7Z","user":{"username":"system:anonymous"},"responseStatus":{"code":200}}`
	lone := strings.Replace(strings.Replace(received, `"a1"`, `"a9"`, 1), "/aws", "/gcp", 1)
	lines := []string{received, stage("ResponseStarted", "101"), probe, lone, stage("ResponseComplete", "200")}
	list := `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[` + strings.Join(lines, ",") + `]}`
	for name, in := range map[string]string{"lines": strings.Join(lines, "\n") + "\n", "EventList": list + "\n"} {
		c := &parsetest.Collect{}
		if _, err := ingest.Stream(strings.NewReader(in), "k8s.jsonl", audit.NewK8sAudit(), ingest.Position{}, c, nil); err != nil {
			t.Fatal(err)
		}
		if len(c.Events) != 3 || c.Stages != 2 || len(c.Rejects) != 0 {
			t.Fatalf("%s: %d events, %d merged, %d rejects; want 3, 2, 0", name, len(c.Events), c.Stages, len(c.Rejects))
		}
		// the probe first: the request waited for its last stage, the lone
		// one for the end of the input
		probeEv, req, alone := c.Events[0], c.Events[1], c.Events[2]
		if !slices.Contains(probeEv.Tags, parse.TagRoutine) {
			t.Errorf("%s: probe %v", name, probeEv.Tags)
		}
		if req.Status != "200" || req.Decision != evidence.DecisionAllow || req.Time.Format("15:04:05.0") != "11:20:01.5" ||
			!strings.Contains(req.Raw, `"ResponseComplete"`) || strings.Contains(req.Message, "stage") {
			t.Errorf("%s: merged %s %s %s %q %.80s", name, req.Status, req.Decision, req.Time, req.Message, req.Raw)
		}
		if name == "lines" && req.Origin != "k8s.jsonl:5" {
			t.Errorf("origin %s, want the last stage's line", req.Origin)
		}
		if !slices.Contains(alone.Tags, parse.TagStage+"RequestReceived") || alone.Status != "" || !strings.Contains(alone.URL, "gcp") {
			t.Errorf("%s: lone stage %+v", name, alone)
		}
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
	parsetest.Fuzz(f, audit.NewK8sAudit(), parsetest.Sample("k8s_audit", "falco-trace-files-k8s-audit.jsonl"))
}
