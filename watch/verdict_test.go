package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ask requests a verdict the way a gateway does.
func ask(t *testing.T, nc *nats.Conn, agent string, req VerdictRequest) Verdict {
	t.Helper()
	b, _ := json.Marshal(req)
	m, err := nc.Request(VerdictSubject(agent), b, 5*time.Second)
	if err != nil {
		t.Fatalf("verdict for %s: %v", agent, err)
	}
	var v Verdict
	if err := json.Unmarshal(m.Data, &v); err != nil {
		t.Fatalf("verdict for %s: %v: %s", agent, err, m.Data)
	}
	if v.Agent != agent || v.Recommendation == "" || v.PolicyHash == "" || v.RulesHash == "" || v.VerdictID == "" {
		t.Fatalf("verdict for %s is incomplete: %s", agent, m.Data)
	}
	return v
}

// The credential-theft sample on the bus: agent-12 read agent-9's proxy
// credential px-s228 and used it. The thief is refused for its findings
// and the credential it holds; the victim, whose credential it is, is
// not; a benign agent and an agent nobody saw are allowed. Every verdict
// is a receipt in a chain that verifies, and an edited receipt is found.
func TestVerdictCredentialTheft(t *testing.T) {
	url, js := bus(t)
	st, err := fleet.OpenState(filepath.Join(t.TempDir(), "ship.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := fleet.Ship(context.Background(), fleet.NewPublisher(js, 0), st,
		[]string{filepath.Join("..", "sample-incidents", sample)}, fleet.ShipOptions{}); err != nil {
		t.Fatal(err)
	}
	_, def := DefaultPolicy()
	text := strings.Replace(string(def), "sample_allows: 100", "sample_allows: 1", 1)
	pol, err := ParsePolicy([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(js, Config{Durable: "verdicts", Lateness: 2 * time.Second, Idle: 500 * time.Millisecond,
		Verdicts: &VerdictConfig{Name: "w1", Policy: &pol, PolicyBytes: []byte(text), CommitEvery: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	waitIdle(t, js, w, "verdicts", done)

	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()

	thief := ask(t, nc, "agent-12", VerdictRequest{ID: "r1", Action: json.RawMessage(`{"tool":"bash"}`)})
	t.Logf("agent-12: %s %v %v", thief.Recommendation, thief.Clauses, thief.Rules)
	if thief.Recommendation != Refuse || !slices.Contains(thief.Clauses, "refuse.severity") ||
		!slices.Contains(thief.Rules, "credential-misuse") || thief.RequestID != "r1" || thief.Rank == nil || !thief.Known {
		t.Errorf("thief: %s clauses %v rules %v rank %v", thief.Recommendation, thief.Clauses, thief.Rules, thief.Rank)
	}
	// px-s228 is named as agent-9's; the proxy refused it after its
	// revocation (an authoritative end), so it is not held any more and
	// the thief is refused for the secrets and the CI job it still holds
	stolen := false
	for _, c := range thief.Capabilities {
		if c.Kind == capability.Credential && c.Value == "px-s228" && c.Owner == "agent-9" && !c.Held {
			stolen = true
		}
	}
	if !stolen || !slices.Contains(thief.Clauses, "refuse.acquired") {
		t.Errorf("the thief's verdict does not name agent-9's px-s228, ended, and refuse what it holds: %+v %v", thief.Capabilities, thief.Clauses)
	}
	for _, r := range thief.Reasons {
		if strings.HasPrefix(r, "acquired credential px-s228") {
			t.Errorf("an ended credential decided: %s", r)
		}
	}
	if len(thief.Evidence) == 0 || thief.Watermark.IsZero() {
		t.Errorf("no evidence or watermark: %v %v", thief.Evidence, thief.Watermark)
	}

	victim := ask(t, nc, "agent-9", VerdictRequest{})
	t.Logf("agent-9: %s %v %v", victim.Recommendation, victim.Clauses, victim.Reasons)
	if victim.Recommendation == Refuse || !victim.Known {
		t.Errorf("the victim is refused (known %v): %v", victim.Known, victim.Reasons)
	}
	for _, r := range victim.Reasons {
		if strings.Contains(r, "px-s228") {
			t.Errorf("the victim's verdict holds the theft against it: %s", r)
		}
	}

	benign := ask(t, nc, "agent-14", VerdictRequest{})
	if benign.Recommendation != Allow || len(benign.Clauses) != 0 || !benign.Known {
		t.Errorf("benign agent-14: %s %v %v", benign.Recommendation, benign.Clauses, benign.Reasons)
	}
	unknown := ask(t, nc, "agent.404 *", VerdictRequest{})
	if unknown.Recommendation != Allow || unknown.Known || len(unknown.Reasons) != 1 || !strings.Contains(unknown.Reasons[0], "no evidence") {
		t.Errorf("unknown agent: %s known %v %v", unknown.Recommendation, unknown.Known, unknown.Reasons)
	}

	// with the kill time the ledger records for agent-12, the one
	// Assessment judges its capabilities
	killed := ask(t, nc, "agent-12", VerdictRequest{Kill: time.Date(2026, 8, 11, 10, 21, 3, 10e6, time.UTC)})
	if killed.Assessment == nil || !slices.Equal(killed.Assessment.Subject, []string{"agent-12"}) || killed.Assessment.State == "" {
		t.Errorf("no Assessment with a kill time: %+v", killed.Assessment)
	} else {
		t.Logf("assessment: %s", killed.Assessment.Headline())
	}

	// a request read after its deadline is not answered
	b, _ := json.Marshal(VerdictRequest{Deadline: time.Now().Add(-time.Second)})
	if _, err := nc.Request(VerdictSubject("agent-12"), b, 300*time.Millisecond); !errors.Is(err, nats.ErrTimeout) {
		t.Errorf("a request past its deadline: %v, want a timeout", err)
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s := w.Stats()
	if s.Verdicts != 5 || s.Receipts != 5 || s.Expired != 1 {
		t.Errorf("stats: %d verdicts, %d receipts, %d expired; want 5, 5, 1", s.Verdicts, s.Receipts, s.Expired)
	}
	rep, err := VerifyReceipts(context.Background(), js, DefaultReceiptsStream, "w1")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Receipts != 5 || len(rep.Breaks) != 0 || rep.Refused != 2 {
		t.Fatalf("chain: %+v", rep)
	}

	tamper(t, js, 2)
	rep, err = VerifyReceipts(context.Background(), js, DefaultReceiptsStream, "w1")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after tampering: %+v", rep.Breaks)
	// the message holding receipt 2 was removed and appended again with
	// receipt 2 changed: where the chain breaks depends on how the five
	// receipts fell into messages, that it breaks does not
	if len(rep.Breaks) == 0 {
		t.Errorf("a changed and re-appended receipt 2 is not found: %+v", rep.Breaks)
	}
}

// tamper does what someone with write access to the stream could: removes
// the message holding receipt seq, and appends it again with that
// receipt's recommendation changed (allow to refuse, or to allow).
func tamper(t *testing.T, js jetstream.JetStream, seq uint64) {
	t.Helper()
	ctx := context.Background()
	s, err := js.Stream(ctx, DefaultReceiptsStream)
	if err != nil {
		t.Fatal(err)
	}
	for n := uint64(1); ; n++ {
		m, err := s.GetMsg(ctx, n)
		if err != nil {
			t.Fatalf("receipt %d not found: %v", seq, err)
		}
		lines, err := MessageLines(m.Header, m.Data)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for i, line := range lines {
			var r Receipt
			if json.Unmarshal(line, &r) != nil || r.Seq != seq {
				continue
			}
			if r.Verdict.Recommendation == Allow {
				r.Verdict.Recommendation = Refuse
			} else {
				r.Verdict.Recommendation = Allow
			}
			lines[i], _ = json.Marshal(r)
			found = true
		}
		if !found {
			continue
		}
		b := append(bytes.Join(lines, []byte("\n")), '\n')
		if err := s.DeleteMsg(ctx, n); err != nil {
			t.Fatal(err)
		}
		if _, err := js.Publish(ctx, m.Subject, b); err != nil {
			t.Fatal(err)
		}
		return
	}
}

// The built-in policy parses; a policy with a misspelt key, an unknown
// severity or kind is refused rather than read as allowing.
func TestVerdictPolicyParse(t *testing.T) {
	p, b := DefaultPolicy()
	if p.Refuse.Severity != "high" || p.SampleAllows != 100 || Hash(b) == "" {
		t.Errorf("default policy: %+v", p)
	}
	for _, bad := range []string{
		"version: 1\nrefuse:\n  severty: high\n",
		"version: 1\nrefuse:\n  severity: urgent\n",
		"version: 1\nreview:\n  acquired: [secret]\n",
		"version: 2\n",
		"version: 1\nsample_allows: -1\n",
	} {
		if _, err := ParsePolicy([]byte(bad)); err == nil {
			t.Errorf("accepted: %q", bad)
		}
	}
}
