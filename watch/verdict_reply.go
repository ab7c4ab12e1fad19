package watch

import (
	"bytes"
	"encoding/json"
	"sync"
)

// A view answers many requests for the same agent, and without a kill
// time each gets the same decision: it is decided and encoded once per
// view and agent, and a reply is that encoding with the request's own
// fields (verdict_id, request_id, at) put in front. A request with a kill
// time is decided on its own (the Assessment depends on the time).

// decided is one agent's decision on a view, with what its reply
// encodes after the request's own fields.
type decided struct {
	verdict Verdict // VerdictID, RequestID and At empty
	rest    []byte  // `"agent":…}`; nil if the encoding did not split
}

// stampless begins every Verdict encoded with VerdictID, RequestID and
// At empty: the fields that differ per request come first in Verdict.
var stampless = []byte(`{"verdict_id":"","at":"0001-01-01T00:00:00Z",`)

// memo is a view's decisions without a kill time, by agent.
type memo struct {
	mu sync.Mutex
	m  map[string]*decided
}

// decision is agent's decision on vw under pol for a request without a
// kill time, decided once per view for an agent the view knows (a name
// nobody knows is decided each time: callers cannot grow the memo);
// own sets the watcher's fields.
func (vw *view) decision(pol *Policy, agent string, req *VerdictRequest, own func(*Verdict)) *decided {
	vw.memo.mu.Lock()
	d, ok := vw.memo.m[agent]
	vw.memo.mu.Unlock()
	if ok {
		return d
	}
	d = &decided{verdict: decide(vw, pol, agent, req)}
	own(&d.verdict)
	if b, err := json.Marshal(d.verdict); err == nil && bytes.HasPrefix(b, stampless) {
		d.rest = b[len(stampless):]
	}
	if !d.verdict.Known {
		return d
	}
	vw.memo.mu.Lock()
	if vw.memo.m == nil {
		vw.memo.m = map[string]*decided{}
	}
	vw.memo.m[agent] = d
	vw.memo.mu.Unlock()
	return d
}

// reply encodes out, the decision d stamped for one request: the same
// bytes json.Marshal(out) gives.
func (d *decided) reply(out *Verdict) ([]byte, error) {
	if d.rest == nil {
		return json.Marshal(out)
	}
	id, err := json.Marshal(out.VerdictID)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(d.rest)+len(id)+len(out.RequestID)+64)
	b = append(b, `{"verdict_id":`...)
	b = append(b, id...)
	if out.RequestID != "" {
		rid, err := json.Marshal(out.RequestID)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"request_id":`...)
		b = append(b, rid...)
	}
	at, err := out.At.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b = append(b, `,"at":`...)
	b = append(b, at...)
	b = append(b, ',')
	return append(b, d.rest...), nil
}
