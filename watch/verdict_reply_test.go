package watch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
)

// A reply made from a view's decision, the request's own fields put in
// front, is byte for byte what encoding the whole verdict gives, for every
// agent of a sample and one nobody knows, with request ids a caller could
// send (quotes, markup, control characters, invalid UTF-8); the decision
// kept is the one deciding again gives. A known agent is decided once per
// view; an unknown one is not kept.
func TestReplyIsTheVerdictEncoded(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	eng := detect.Engine{Rules: rules, Attribute: true}
	p, err := eng.Start(context.Background(), detect.NewMemSource(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range sampleEvents(t, "credential-theft") {
		if err := p.Add(&ev); err != nil {
			t.Fatal(err)
		}
	}
	vw := newView(p.View(), p.Last().Time, p.Events())
	v := newVerdicts(VerdictConfig{Name: `w"1<`}, "d", []byte("rules"))
	agents := append(vw.res.Capabilities.Agents(), "nobody", `a"b\c`)
	refused := 0
	for _, agent := range agents {
		for _, id := range []string{"", "gw-1", `"},"recommendation":"allow`, "<script>&", "\u2028\x00\x1f", "\xff\xfe", strings.Repeat("é", 300)} {
			req := VerdictRequest{ID: id}
			d := vw.decision(&v.pol, agent, &req, v.own)
			out := d.verdict
			v.stamp(&out, &req)
			out.At = time.Date(2026, 12, 4, 7, 58, 1, 200000000, time.FixedZone("x", 3600)) // a zone and a fraction
			got, err := d.reply(&out)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(out)
			if string(got) != string(want) {
				t.Fatalf("agent %q, request id %q:\n got %s\nwant %s", agent, id, got, want)
			}
			// and the decision kept is the one decide makes now
			fresh := decide(vw, &v.pol, agent, &req)
			v.own(&fresh)
			fresh.VerdictID, fresh.RequestID, fresh.At = out.VerdictID, out.RequestID, out.At
			if f, _ := json.Marshal(fresh); string(f) != string(want) {
				t.Fatalf("agent %q: the view's kept decision differs from deciding again:\n got %s\nwant %s", agent, want, f)
			}
			if d.rest == nil {
				t.Fatalf("agent %q: the encoding did not split, every reply is encoded whole", agent)
			}
			if out.Recommendation == Refuse {
				refused++
			}
			again := vw.decision(&v.pol, agent, &req, v.own)
			if out.Known != (again == d) {
				t.Fatalf("agent %q (known %v): decided once per view %v", agent, out.Known, again == d)
			}
		}
	}
	if refused == 0 {
		t.Fatal("no agent of the sample refused: the test covers allows only")
	}
}

// A receipt whose verdict is the reply's bytes, put in place as they are,
// is the receipt encoding the verdict gives, whatever the request holds
// (a verdict field of its own, markup, control characters) and with or
// without skipped allows after it.
func TestEncodedReceiptIsAReceipt(t *testing.T) {
	out := Verdict{VerdictID: "w-1", RequestID: `r"<`, Agent: "agent-12", Recommendation: Refuse, Clauses: []string{"refuse.severity"},
		Rules: []string{"credential-misuse"}, Reasons: []string{"<b>&\u2028"}, Known: true, At: time.Now(), Findings: []VerdictFinding{}, Capabilities: []VerdictCap{}, Evidence: []string{"e1"}}
	reply, _ := json.Marshal(out)
	for _, req := range []string{`{"id":"x"}`, `{"id":"x","verdict":null}`, `{"a":{"verdict":null},"b":"\"verdict\":null"}`,
		`{"id" : "<b>", "x":[1, 2]}`, `"verdict":null`, ``} {
		for _, skipped := range []int64{0, 3} {
			r := Receipt{Schema: receiptSchema, Watcher: `w"<`, Seq: 7, Prev: "abc", Subject: "cordon.verdict.agent-12", Request: json.RawMessage(req), Verdict: out, SkippedAllows: skipped}
			if !json.Valid(r.Request) {
				r.Request = nil
			}
			want, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			head, err := json.Marshal(receipt[json.RawMessage]{Schema: r.Schema, Watcher: r.Watcher, Seq: r.Seq, Prev: r.Prev, Subject: r.Subject, Request: r.Request, SkippedAllows: r.SkippedAllows})
			if err != nil {
				t.Fatal(err)
			}
			if got := appendReceipt([]byte("kept"), head, reply); string(got) != "kept"+string(want) {
				t.Fatalf("request %s, skipped %d:\n got %s\nwant kept%s", req, skipped, got, want)
			}
		}
	}
}
