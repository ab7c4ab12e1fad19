package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/nats-io/nats.go"
)

// VerdictConfig turns on verdicts in a Watcher.
type VerdictConfig struct {
	// Name names the watcher in verdicts and its receipt chain
	// (default: the durable).
	Name string
	// Policy and its bytes (for its hash); nil: DefaultPolicy.
	Policy      *Policy
	PolicyBytes []byte
	// ReceiptsStream is the receipts' stream (default
	// DefaultReceiptsStream); CommitEvery how long a receipt waits before
	// its batch is sent (default DefaultCommitEvery).
	ReceiptsStream string
	CommitEvery    time.Duration
}

// verdicts answers verdict requests from the watcher's view and queues
// their receipts.
type verdicts struct {
	cfg        VerdictConfig
	pol        Policy
	policyHash string
	rulesHash  string
	view       atomic.Pointer[view]
	queue      chan pending
	started    int64
	n          atomic.Int64
	// mu orders the sampling of allows and their receipts: verdicts come
	// from the subscription and from ext_authz callers at once
	mu      sync.Mutex
	allows  int64
	skipped int64
	// gate: serving is set while receipts are written; an answer given
	// outside NATS holds it read from its check to its receipt queued,
	// so that stopping writes every receipt of an answer given
	gate    sync.RWMutex
	serving bool
	// viewGap is the least time between two copies of the view, from
	// what the last one cost (the watcher's loop only)
	viewGap  time.Duration
	answered atomic.Int64
	expired  atomic.Int64
	receipts atomic.Int64
	// maxPayload is the server's limit on a reply (fitVerdict; 0: none)
	maxPayload atomic.Int64
}

func newVerdicts(cfg VerdictConfig, durable string, rulesJSON []byte) *verdicts {
	if cfg.Name == "" {
		cfg.Name = durable
	}
	if cfg.ReceiptsStream == "" {
		cfg.ReceiptsStream = DefaultReceiptsStream
	}
	if cfg.CommitEvery <= 0 {
		cfg.CommitEvery = DefaultCommitEvery
	}
	v := &verdicts{cfg: cfg, rulesHash: Hash(rulesJSON), queue: make(chan pending, 65536), started: time.Now().UnixNano()}
	if cfg.Policy == nil {
		p, b := DefaultPolicy()
		v.pol, v.cfg.PolicyBytes = p, b
	} else {
		v.pol = *cfg.Policy
	}
	v.policyHash = Hash(v.cfg.PolicyBytes)
	return v
}

// handle answers one request: the reply first, then the receipt queued.
func (v *verdicts) handle(m *nats.Msg) {
	agent, err := fleet.Untoken(strings.TrimPrefix(m.Subject, VerdictPrefix))
	var req VerdictRequest
	if err == nil && len(m.Data) > 0 {
		err = json.Unmarshal(m.Data, &req)
	}
	if err != nil {
		b, _ := json.Marshal(map[string]string{"error": "bad request: " + err.Error()})
		_ = m.Respond(b)
		return
	}
	if !req.Deadline.IsZero() && time.Now().After(req.Deadline) {
		v.expired.Add(1) // the caller has stopped waiting
		return
	}
	vw := v.view.Load()
	if vw == nil {
		vw = &view{}
	}
	var out Verdict
	var b []byte
	if req.Kill.IsZero() {
		d := vw.decision(&v.pol, agent, &req, v.own)
		out = d.verdict
		v.stamp(&out, &req)
		b, err = d.reply(&out)
	} else {
		out = decide(vw, &v.pol, agent, &req)
		v.stamp(&out, &req)
		b, err = json.Marshal(out)
	}
	if limit := int(v.maxPayload.Load()); err == nil && limit > 0 && len(b) > limit {
		out, b, err = fitVerdict(out, limit)
	}
	if err != nil {
		return
	}
	if err := m.Respond(b); err != nil {
		return
	}
	v.answered.Add(1)
	v.keep(m.Subject, m.Data, out, b)
}

// stamp names a verdict and says what it was given under.
func (v *verdicts) stamp(out *Verdict, req *VerdictRequest) {
	v.own(out)
	out.VerdictID = fmt.Sprintf("%s-%x-%d", v.cfg.Name, v.started, v.n.Add(1))
	out.RequestID, out.At = req.ID, time.Now().UTC()
}

// own sets what every verdict of this watcher says it was given under.
func (v *verdicts) own(out *Verdict) {
	out.Watcher, out.RulesHash, out.PolicyHash = v.cfg.Name, v.rulesHash, v.policyHash
}

// keep queues the receipt of a verdict given, or counts an allow the
// sampling skips; reply is the verdict as it was encoded, if it was.
func (v *verdicts) keep(subject string, request []byte, out Verdict, reply []byte) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if out.Recommendation == Allow {
		keep := v.pol.SampleAllows > 0 && v.allows%int64(v.pol.SampleAllows) == 0
		v.allows++
		if !keep {
			v.skipped++
			return
		}
	}
	p := pending{subject: subject, request: request, verdict: out, reply: reply, skipped: v.skipped}
	v.skipped = 0
	v.queue <- p // a full queue slows verdicts down rather than lose a refusal's receipt
}

// commitLoop writes the receipts: a window opens with the first receipt
// queued and closes CommitEvery after it (or when full); its receipts are
// then sent as one message and the loop waits for the server to take it,
// so a crash loses the receipts of at most that long of verdicts plus
// the window in flight.
func (v *verdicts) commitLoop(ctx context.Context, c *chain) error {
	wctx := context.WithoutCancel(ctx)
	for {
		var first pending
		select {
		case <-ctx.Done():
			return v.flush(c)
		case first = <-v.queue:
		}
		w := c.window()
		if err := w.add(wctx, first); err != nil {
			return err
		}
		n := 1
		timer := time.NewTimer(v.cfg.CommitEvery)
	fill:
		for n < receiptsMaxBatch {
			select {
			case p := <-v.queue:
				if err := w.add(wctx, p); err != nil {
					timer.Stop()
					return err
				}
				n++
			case <-timer.C:
				break fill
			case <-ctx.Done():
				break fill
			}
		}
		timer.Stop()
		if err := w.wait(wctx); err != nil {
			return err
		}
		v.receipts.Add(int64(n))
	}
}

// flush writes what is queued when the watcher stops.
func (v *verdicts) flush(c *chain) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		var batch []pending
	drain:
		for len(batch) < receiptsMaxBatch {
			select {
			case p := <-v.queue:
				batch = append(batch, p)
			default:
				break drain
			}
		}
		if len(batch) == 0 {
			return nil
		}
		if err := c.commit(ctx, batch); err != nil {
			return err
		}
		v.receipts.Add(int64(len(batch)))
	}
}

// serveVerdicts answers verdicts until the returned stop is called; stop
// unsubscribes, writes the receipts queued and says whether that failed.
// failed receives an error should the receipts stop being written.
func (w *Watcher) serveVerdicts(ctx context.Context, failed chan<- error) (stop func() error, err error) {
	v := w.verdicts
	c, err := openChain(ctx, w.js, v.cfg.ReceiptsStream, v.cfg.Name)
	if err != nil {
		return nil, err
	}
	w.viewAt = time.Time{} // the first copy is made whatever the last cost
	w.refreshView(time.Now())
	// a connection of their own: on the watcher's, requests would wait
	// behind the events it is fetching and the findings it publishes
	opts := w.js.Conn().Opts
	opts.Name += " (verdicts)"
	nc, err := opts.Connect()
	if err != nil {
		return nil, fmt.Errorf("verdicts: %w", err)
	}
	v.maxPayload.Store(nc.MaxPayload())
	sub, err := nc.QueueSubscribe(VerdictPrefix+"*", VerdictQueue, v.handle)
	if err == nil {
		err = nc.Flush()
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("verdicts: %w", err)
	}
	v.gate.Lock()
	v.serving = true
	v.gate.Unlock()
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() {
		err := v.commitLoop(cctx, c)
		if err != nil {
			select {
			case failed <- fmt.Errorf("receipts: %w", err):
			default:
			}
		}
		done <- err
	}()
	return func() error {
		_ = sub.Drain() // the requests received are answered
		for end := time.Now().Add(5 * time.Second); sub.IsValid() && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
		nc.Close()
		v.gate.Lock()
		v.serving = false
		v.gate.Unlock()
		cancel()
		return <-done
	}, nil
}

// refreshView makes the view verdicts read from the pass's View: at most
// every viewEvery unless forced. A view copies the capability sets of the
// agents whose capabilities changed since the last one (every set after
// an end recorded or a session learnt), and shares the others'.
//
// No view is made sooner than viewCost times what the last one took
// after it, a finding changed or not: an agent of 100,000 tool calls
// that keeps acting has its set copied at every view, tens of
// milliseconds, and making one every viewEvery would then take most of
// the loop, and the verdicts' latency with it. The view put off is made
// at the loop's next step (the view stays dirty).
func (w *Watcher) refreshView(now time.Time) {
	v := w.verdicts
	if v == nil || w.pass == nil {
		return
	}
	if now.Sub(w.viewAt) < v.viewGap {
		w.viewDirty = true
		return
	}
	start := time.Now()
	w.viewAt, w.viewDirty = now, false
	vw := newView(w.passView(), w.pass.Last().Time, w.pass.Events())
	vw.id = w.pass.Identity()
	v.view.Store(vw)
	v.viewGap = min(maxViewGap, viewCost*time.Since(start))
}

// viewStale says the verdicts' view lacks some of what the pass took
// (never, when the watcher answers no verdicts).
func (w *Watcher) viewStale() bool {
	v := w.verdicts
	if v == nil || w.pass == nil {
		return false
	}
	vw := v.view.Load()
	return w.viewDirty || vw == nil || vw.events != w.pass.Events()
}

// viewCost bounds the share of the loop copies take: at most one in
// viewCost+1 of its time, as long as a copy takes under maxViewGap /
// viewCost; maxViewGap bounds how stale that makes the view.
const (
	viewCost   = 3
	maxViewGap = time.Second
)

// viewEvery is how often, at most, a busy watcher copies its pass's answer
// for verdicts: a verdict may miss up to that much of the latest events
// (besides the lateness every event waits).
const viewEvery = 100 * time.Millisecond

// passView is the pass's View as it stands: the one made last when the
// pass took nothing since (the verdicts' view and the holdings read the
// same), else a new one.
func (w *Watcher) passView() detect.View {
	if w.lastOf != w.pass || w.lastAt != w.pass.Events() {
		w.last, w.lastOf, w.lastAt = w.pass.View(), w.pass, w.pass.Events()
	}
	return w.last
}
