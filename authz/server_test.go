package authz_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	authv3 "github.com/envoyproxy/go-control-plane/envoy/service/auth/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cordon-ir/cordon/authz"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/watch"
)

// The credential-theft sample behind an Envoy egress gateway: each check
// is attributed from the request as the pass attributes a proxy's log
// line, and answered with the verdict cordon.verdict.<agent> gives. The
// thief is refused from its sandbox's address, its container or its own
// proxy login; the victim, even presenting its own stolen credential, is
// not; an address nobody bound is allowed as an unknown agent; keys that
// point at thief and victim at once get the thief's verdict. Every
// verdict is a receipt in the watcher's chain.
func TestExtAuthzCredentialTheft(t *testing.T) {
	w, _, js, stop := run(t, everyAllow(t))
	srv, client := serve(t, w)
	ctx := context.Background()
	during := time.Date(2026, 8, 11, 9, 20, 0, 0, time.UTC) // agent-9's and agent-12's sessions both open

	cases := []struct {
		name   string
		req    *authv3.CheckRequest
		code   codes.Code
		agent  string
		known  bool
		via    string
		reason string // a reason of the verdict names this
	}{
		{"thief's sandbox address", check("r-thief-ip", "10.0.2.21", "", time.Time{}, nil), codes.PermissionDenied, "agent-12", true, "src_ip", "credential-misuse"},
		{"thief's container", check("r-thief-ctr", "192.0.2.50", "", time.Time{}, map[string]string{authz.ExtContainer: "c72fd8dff7e9"}), codes.PermissionDenied, "agent-12", true, "container", "credential-misuse"},
		{"thief's own proxy login, during its session", check("r-thief-login", "192.0.2.50", "px-s231", during, nil), codes.PermissionDenied, "agent-12", true, "credential", "credential-misuse"},
		{"victim's address, its own credential", check("r-victim", "10.0.2.17", "px-s228", time.Time{}, nil), codes.OK, "agent-9", true, "src_ip", ""},
		{"victim's credential, during its session", check("r-victim-cred", "192.0.2.50", "px-s228", during, nil), codes.OK, "agent-9", true, "credential", ""},
		{"benign agent", check("r-benign", "10.0.2.25", "px-s233", time.Time{}, nil), codes.OK, "agent-14", true, "src_ip", ""},
		{"address nobody bound", check("r-unknown", "192.0.2.77", "", time.Time{}, nil), codes.OK, "", false, "", "no evidence of this agent"},
		{"victim's address, thief's container", check("r-both", "10.0.2.17", "", time.Time{}, map[string]string{authz.ExtContainer: "c72fd8dff7e9"}), codes.PermissionDenied, "agent-12", true, "ambiguous", "agent-12 and agent-9"},
	}
	refused := 0
	for _, c := range cases {
		resp, err := client.Check(ctx, c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		md := resp.GetDynamicMetadata().AsMap()
		t.Logf("%s: %s %v: %s", c.name, codes.Code(resp.GetStatus().GetCode()), md["recommendation"], resp.GetStatus().GetMessage())
		if got := codes.Code(resp.GetStatus().GetCode()); got != c.code {
			t.Errorf("%s: %s, want %s", c.name, got, c.code)
		}
		if md["agent"] != c.agent || md["known"] != c.known || md["via"] != c.via || md["verdict_id"] == "" {
			t.Errorf("%s: metadata %v, want agent %q known %v via %q", c.name, md, c.agent, c.known, c.via)
		}
		switch c.code {
		case codes.PermissionDenied:
			refused++
			d := resp.GetDeniedResponse()
			msg := resp.GetStatus().GetMessage()
			if md["recommendation"] != watch.Refuse || d == nil || d.GetStatus().GetCode() != 403 ||
				!strings.Contains(msg, c.reason) || !strings.Contains(msg, "cordon refuses "+c.agent) {
				t.Errorf("%s: a refusal without its reason or 403: %v %q", c.name, d, msg)
			}
			// the agent reads the body: the verdict, not the detectors
			if strings.Contains(d.GetBody(), "credential") || !strings.Contains(d.GetBody(), md["verdict_id"].(string)) {
				t.Errorf("%s: body %q", c.name, d.GetBody())
			}
		default:
			if resp.GetOkResponse() == nil || md["recommendation"] == watch.Refuse {
				t.Errorf("%s: not an OK response: %v", c.name, resp)
			}
		}
	}
	if s := srv.Stats(); s.Checks != int64(len(cases)) || s.Denied != int64(refused) || s.Unanswered != 0 {
		t.Errorf("server stats %+v", s)
	}

	if err := stop(); err != nil {
		t.Fatal(err)
	}
	// stopped: not answered, and Envoy's failure_mode_allow decides
	_, err := client.Check(ctx, check("r-late", "10.0.2.21", "", time.Time{}, nil))
	if status.Code(err) != codes.Unavailable {
		t.Errorf("a stopped watcher: %v, want UNAVAILABLE", err)
	}

	rep, err := watch.VerifyReceipts(ctx, js, watch.DefaultReceiptsStream, "w1")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Receipts != len(cases) || rep.Refused != refused || len(rep.Breaks) != 0 {
		t.Fatalf("chain: %+v, want %d receipts, %d refused", rep, len(cases), refused)
	}
	var ids []string
	for _, r := range receipts(t, js, "w1") {
		ids = append(ids, r.Verdict.RequestID)
		if r.Subject != authz.Subject || r.Verdict.Attribution == nil || len(r.Verdict.Attribution.Keys) == 0 {
			t.Errorf("receipt %d: subject %q attribution %+v", r.Seq, r.Subject, r.Verdict.Attribution)
		}
		if strings.Contains(string(r.Request), "s3cret") {
			t.Errorf("receipt %d keeps the proxy password: %s", r.Seq, r.Request)
		}
	}
	for _, c := range cases {
		if !slices.Contains(ids, c.req.GetAttributes().GetRequest().GetHttp().GetId()) {
			t.Errorf("no receipt for %s", c.name)
		}
	}
}

// slow is an Asker that takes its time before asking the watcher: an
// overloaded one.
type slow struct {
	w     *watch.Watcher
	delay time.Duration
}

func (s slow) Ask(ev *evidence.Event, req watch.VerdictRequest, subject string) (watch.Verdict, error) {
	time.Sleep(s.delay)
	return s.w.Ask(ev, req, subject)
}

// The caller's gRPC deadline is the verdict's: a check the watcher comes
// to after it is not decided, counted as expired, and keeps no receipt;
// the caller has its DEADLINE_EXCEEDED at its deadline, not the
// watcher's pace.
func TestExtAuthzDeadline(t *testing.T) {
	w, _, js, stop := run(t, everyAllow(t))
	srv, client := serve(t, slow{w: w, delay: 400 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := client.Check(ctx, check("r-slow", "10.0.2.21", "", time.Time{}, nil))
	took := time.Since(start)
	if status.Code(err) != codes.DeadlineExceeded || took > 300*time.Millisecond {
		t.Fatalf("after %s: %v, want DEADLINE_EXCEEDED at the caller's 25ms", took, err)
	}
	// it reached the watcher after its deadline, or (on a loaded machine)
	// the server after it: expired either way
	for end := time.Now().Add(5 * time.Second); srv.Stats().Expired == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the server never counted the late check expired: %+v", srv.Stats())
		}
	}
	// the watcher itself decides nothing past a deadline
	if _, err := w.Ask(&evidence.Event{SrcIP: "10.0.2.21"}, watch.VerdictRequest{ID: "r-past", Deadline: time.Now().Add(-time.Millisecond)}, authz.Subject); !errors.Is(err, watch.ErrExpired) {
		t.Errorf("Ask past its deadline: %v, want ErrExpired", err)
	}
	// in time, the same check is answered
	ok, err := client.Check(context.Background(), check("r-in-time", "10.0.2.21", "", time.Time{}, nil))
	if err != nil || codes.Code(ok.GetStatus().GetCode()) != codes.PermissionDenied {
		t.Fatalf("a check in time: %v %v", ok, err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if s := w.Stats(); s.Expired < 1 || s.Expired > 2 || s.Verdicts != 1 || s.Receipts != 1 {
		t.Errorf("watcher: %d expired, %d verdicts, %d receipts; want 1 or 2, 1, 1", s.Expired, s.Verdicts, s.Receipts)
	}
	for _, r := range receipts(t, js, "w1") {
		if r.Verdict.RequestID == "r-slow" || r.Verdict.RequestID == "r-past" {
			t.Errorf("the expired check has a receipt: %+v", r)
		}
	}
}

// Before the watcher serves (it rebuilds its pass from the stream
// first), a check is UNAVAILABLE: never an allow cordon did not decide.
func TestExtAuthzNotServing(t *testing.T) {
	w, err := watch.New(nil, watch.Config{Durable: "not-started", Verdicts: &watch.VerdictConfig{}})
	if err != nil {
		t.Fatal(err)
	}
	srv, client := serve(t, w)
	_, err = client.Check(context.Background(), check("r", "10.0.2.21", "", time.Time{}, nil))
	if status.Code(err) != codes.Unavailable || srv.Stats().Unanswered != 1 {
		t.Fatalf("%v (%+v), want UNAVAILABLE", err, srv.Stats())
	}
}
