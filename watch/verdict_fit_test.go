package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/bench/benchtest"
	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
)

// busyAgent is a view of one agent that sent data to hosts hosts, holds
// creds credentials of another's and has findings findings, every third
// high: the reply of an agent that reached a great many places.
func busyAgent(hosts, creds, findings int) (*view, time.Time) {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	var caps []*capability.Capability
	id := 0
	next := func() string { id++; return fmt.Sprintf("%016x", id) }
	for i := range hosts {
		caps = append(caps, &capability.Capability{Agent: "agent-x", Kind: capability.DataOut, Value: fmt.Sprintf("h%05d.example", i),
			Origin: capability.Acquired, How: "sent to it", Acquired: []string{next()},
			Uses: []capability.Use{{Time: t0.Add(time.Duration(i) * time.Second), ID: next(), Source: "proxy"}}})
	}
	for i := range creds {
		caps = append(caps, &capability.Capability{Agent: "agent-x", Kind: capability.Credential, Value: fmt.Sprintf("px-%03d", i), Owner: "agent-y",
			Origin: capability.Acquired, How: "read from agent-y's volume", Acquired: []string{next()},
			Uses: []capability.Use{{Time: t0.Add(time.Duration(i) * time.Minute), ID: next(), Source: "proxy"}}})
	}
	var fs []detect.Finding
	for i := range findings {
		sev := "low"
		if i%3 == 0 {
			sev = "high"
		}
		fs = append(fs, detect.Finding{ID: fmt.Sprintf("f%04d", i), Detector: "boundary-probing", Agent: "agent-x", Severity: sev,
			Start: t0.Add(time.Duration(i) * time.Minute), End: t0.Add(time.Duration(i)*time.Minute + time.Second), Events: []string{next()}})
	}
	set := capability.NewSortedSet(map[string][]*capability.Capability{"agent-x": caps})
	res := detect.Result{Findings: fs, Capabilities: set}
	return newView(detect.View{Result: res, Ranks: detect.RankAgents(detect.RankInput{Findings: fs, Capabilities: set})}, t0.Add(2*time.Hour), int64(id)), t0
}

// A verdict names bounded lists and counts them all; what it decides is
// decided on everything, and the capabilities that decided are named.
func TestVerdictListsAreBounded(t *testing.T) {
	v, _ := busyAgent(3000, 40, 300)
	pol, _ := DefaultPolicy()
	out := decide(v, &pol, "agent-x", &VerdictRequest{})
	if out.Recommendation != Refuse || !slices.Equal(out.Clauses, []string{"refuse.severity", "refuse.acquired"}) || !slices.Equal(out.Rules, []string{"boundary-probing"}) {
		t.Fatalf("decided %s %v %v, want refuse for its high findings and the credentials it holds", out.Recommendation, out.Clauses, out.Rules)
	}
	if len(out.Capabilities) != maxVerdictCaps || out.CapabilityCount != 3040 {
		t.Errorf("%d capabilities named, %d counted; want %d of 3040", len(out.Capabilities), out.CapabilityCount, maxVerdictCaps)
	}
	creds := 0
	for _, c := range out.Capabilities {
		if c.Kind == capability.Credential {
			creds++
		}
	}
	if creds != 40 {
		t.Errorf("%d of the 40 credentials that decided are named", creds)
	}
	if len(out.Findings) != maxVerdictFindings || out.FindingCount != 300 {
		t.Errorf("%d findings named, %d counted; want %d of 300", len(out.Findings), out.FindingCount, maxVerdictFindings)
	}
	for _, f := range out.Findings {
		if f.Severity != "high" {
			t.Fatalf("a %s finding is named while high ones are left out", f.Severity)
		}
	}
	// a reason per high finding (100) and per credential held (40)
	if len(out.Reasons) != maxVerdictReasons || out.ReasonCount != 140 {
		t.Errorf("%d reasons named, %d counted; want %d of 140", len(out.Reasons), out.ReasonCount, maxVerdictReasons)
	}
	b, _ := json.Marshal(out)
	t.Logf("reply %d bytes", len(b))

	// a small agent's lists are whole and carry no count
	small, _ := busyAgent(5, 2, 4)
	s := decide(small, &pol, "agent-x", &VerdictRequest{})
	if len(s.Capabilities) != 7 || len(s.Findings) != 4 || s.CapabilityCount+s.FindingCount+s.ReasonCount != 0 {
		t.Errorf("a small verdict: %d capabilities, %d findings, counts %d %d %d", len(s.Capabilities), len(s.Findings), s.CapabilityCount, s.FindingCount, s.ReasonCount)
	}
	if b, _ := json.Marshal(s); strings.Contains(string(b), "_count") {
		t.Errorf("a whole verdict names a count: %s", b)
	}
}

// A reply too large for the server gives its Assessment as the agent's
// Standing, then halves its lists, and says the same thing.
func TestVerdictFitsTheServersLimit(t *testing.T) {
	v, t0 := busyAgent(3000, 40, 300)
	pol, _ := DefaultPolicy()
	out := decide(v, &pol, "agent-x", &VerdictRequest{Kill: t0.Add(30 * time.Minute)})
	whole, _ := json.Marshal(out)
	if out.Assessment == nil {
		t.Fatal("a request with a kill time has no Assessment")
	}
	for _, limit := range []int{len(whole), 64 << 10, 8 << 10, 2 << 10} {
		got, b, err := fitVerdict(out, limit)
		if err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		if len(b) > limit {
			t.Fatalf("limit %d: %d bytes", limit, len(b))
		}
		var back Verdict
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Recommendation != out.Recommendation || !slices.Equal(back.Clauses, out.Clauses) || !slices.Equal(back.Rules, out.Rules) {
			t.Fatalf("limit %d: decided %s %v %v, the whole reply %s %v %v", limit, back.Recommendation, back.Clauses, back.Rules, out.Recommendation, out.Clauses, out.Rules)
		}
		if limit == len(whole) {
			if string(b) != string(whole) || got.Assessment == nil {
				t.Fatal("a reply that fits was changed")
			}
			continue
		}
		st, _ := out.Assessment.Standing("agent-x", requestKill)
		if back.Assessment != nil || back.Standing == nil || back.Standing.Contained != st.Contained || back.Standing.Holds != st.Holds {
			t.Fatalf("limit %d: the Assessment is not given as its Standing: %+v", limit, back.Standing)
		}
		if !strings.Contains(back.Reasons[0], "Assessment at the request's kill is left out") {
			t.Fatalf("limit %d: the reply does not say what it left out: %q", limit, back.Reasons[0])
		}
		if c := max(back.CapabilityCount, len(back.Capabilities)); c != 3040 {
			t.Errorf("limit %d: %d capabilities counted", limit, c)
		}
		if c := max(back.FindingCount, len(back.Findings)); c != 300 {
			t.Errorf("limit %d: %d findings counted", limit, c)
		}
	}
}

// On a server whose max_payload is under what the busiest agent's reply
// would be, the gateway still gets its verdict: it fits, and decides as
// the whole one does. Before, the reply was refused by the client and the
// gateway heard nothing.
func TestVerdictAnsweredUnderSmallMaxPayload(t *testing.T) {
	const limit = 16 << 10
	_, js := smallBus(t, limit)
	nc := js.Conn()
	ctx := context.Background()
	evs := benchtest.GeneratedEvents(t, 30000)
	res := oneShotResult(t, evs)
	busiest := ""
	for _, a := range res.Capabilities.Agents() {
		if busiest == "" || len(res.Capabilities.For(a)) > len(res.Capabilities.For(busiest)) {
			busiest = a
		}
	}
	publishEvents(t, js, evs)
	pol, text := DefaultPolicy()
	w, err := New(js, Config{Durable: "fit", Lateness: time.Second, Idle: 300 * time.Millisecond,
		Verdicts: &VerdictConfig{Name: "w1", Policy: &pol, PolicyBytes: text, CommitEvery: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	waitIdle(t, js, w, "fit", done)

	kill := evs[len(evs)/2].Time
	for _, req := range []VerdictRequest{{ID: "plain"}, {ID: "kill", Kill: kill}} {
		body, _ := json.Marshal(req)
		m, err := nc.Request(VerdictSubject(busiest), body, 10*time.Second)
		if err != nil {
			t.Fatalf("%s: no verdict for %s: %v", req.ID, busiest, err)
		}
		if len(m.Data) > limit {
			t.Fatalf("%s: reply of %d bytes", req.ID, len(m.Data))
		}
		var got Verdict
		if err := json.Unmarshal(m.Data, &got); err != nil {
			t.Fatal(err)
		}
		vw := w.verdicts.view.Load()
		want := decide(vw, &pol, busiest, &req)
		wb, _ := json.Marshal(want)
		if got.Recommendation != want.Recommendation || !slices.Equal(got.Clauses, want.Clauses) || !slices.Equal(got.Rules, want.Rules) || !got.Known {
			t.Errorf("%s: decided %s %v %v, the whole verdict %s %v %v", req.ID, got.Recommendation, got.Clauses, got.Rules, want.Recommendation, want.Clauses, want.Rules)
		}
		if n := max(got.CapabilityCount, len(got.Capabilities)); n != max(want.CapabilityCount, len(want.Capabilities)) {
			t.Errorf("%s: %d capabilities counted, the whole verdict %d", req.ID, n, max(want.CapabilityCount, len(want.Capabilities)))
		}
		t.Logf("%s: %s, %d bytes (the whole verdict %d), %d of %d capabilities named", req.ID, got.Recommendation, len(m.Data), len(wb), len(got.Capabilities), max(got.CapabilityCount, len(got.Capabilities)))
	}
	if len(res.Capabilities.For(busiest)) < 50 {
		t.Fatalf("the busiest agent has %d capabilities: the test proves little", len(res.Capabilities.For(busiest)))
	}
}
