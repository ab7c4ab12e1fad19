package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/nats-io/nats.go/jetstream"
)

// PullConfig says which evidence Pull takes from a stream.
type PullConfig struct {
	Stream string  // default DefaultStream
	Routes []Route // raw subjects of a publisher's own, as a Reader's
	// Agents are the agents whose evidence is pulled, as attribution
	// names them: a ledger record names its agent, a proxy, sensor or
	// audit event is the agent's when the stream's session records bind
	// one of its keys (IP, container, pod, credential) to the agent then,
	// and an event ambiguous between agents is the evidence of each of
	// its candidates.
	Agents []string
	// Since and Until bound the events' own time (zero: unbounded).
	// The identity records (attribution.AttributeAllKeys) are taken up to
	// Until whatever their time: a binding made before Since decides
	// events after it.
	Since, Until time.Time
	Reject       func(MessageReject)
}

// PullResult says what Pull read and what it kept.
type PullResult struct {
	Stream string `json:"stream"`
	// Upto is the last stream sequence read: the stream as it stood
	// when the pull began.
	Upto     uint64 `json:"upto"`
	Read     int64  `json:"read"`     // events decoded, copies included
	Distinct int64  `json:"distinct"` // events of distinct ids
	Selected int64  `json:"selected"` // events written
	// Keys counts the identity records among them (session records, the
	// records that decide a conflict or show a credential changing hands),
	// every agent's.
	Keys int64 `json:"keys"`
	// ByAgent counts the selected events each agent was attributed.
	ByAgent map[string]int64 `json:"by_agent"`
	First   time.Time        `json:"first,omitzero"`
	Last    time.Time        `json:"last,omitzero"`
}

// From is how a workspace's journal names where pulled evidence came
// from (the server is left out: its address may carry a password).
func (r PullResult) From(cfg PullConfig) string {
	return fmt.Sprintf("nats stream %s up to sequence %d, agents %s, events %s to %s",
		r.Stream, r.Upto, strings.Join(cfg.Agents, ","), spanTime(cfg.Since), spanTime(cfg.Until))
}

// spanTime is one end of a pull's span, "-" when open.
func spanTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// FromArchive is how a workspace's journal names a slice taken from the
// archive at dir.
func (r PullResult) FromArchive(dir string, cfg PullConfig) string {
	return fmt.Sprintf("archive %s, agents %s, events %s to %s", dir, strings.Join(cfg.Agents, ","), spanTime(cfg.Since), spanTime(cfg.Until))
}

// Pull reads the stream, as it stands when called, with an ephemeral
// ordered consumer (nothing acknowledged, no consumer left behind),
// attributes its events as a workspace holding all of them would
// (attribution.AttributeAllKeys), and writes to w, one JSON line each in
// (time, id) order, the events of cfg.Agents within Since and Until, and
// every agent's identity records up to Until, so that the share pulled
// attributes its events as the whole stream does:
// a relay file (ingest/relay) that a workspace ingests, attributing them
// again itself. Events are written as the stream holds them (the agent a
// shipper's parser set, raw record and origin intact), the last of each id
// (a copy is the same event; a request's later stage replaces its earlier
// one). Pull holds the stream's events in memory while it attributes them.
func Pull(ctx context.Context, js jetstream.JetStream, cfg PullConfig, w io.Writer) (PullResult, error) {
	res, _, err := pull(ctx, js, cfg, w)
	return res, err
}

// pulled is what a pull knows when it has written the stream as it
// stood: what a follow goes on from.
type pulled struct {
	rcfg    ReaderConfig
	id      *attribution.Identity
	written map[string]bool
	mine    func(*evidence.Event) bool
	within  func(time.Time) bool
}

func pull(ctx context.Context, js jetstream.JetStream, cfg PullConfig, w io.Writer) (PullResult, *pulled, error) {
	rcfg := ReaderConfig{Stream: cfg.Stream, Routes: cfg.Routes, Reject: cfg.Reject}
	rcfg.defaults()
	res := PullResult{Stream: rcfg.Stream, ByAgent: map[string]int64{}}
	// read once for the pull and the follow after it (PullFollow)
	if err := rcfg.resolveLedger(ctx, js); err != nil {
		return res, nil, err
	}
	s, err := js.Stream(ctx, rcfg.Stream)
	if err != nil {
		return res, nil, streamErr(js, rcfg.Stream, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return res, nil, streamErr(js, rcfg.Stream, err)
	}
	res.Upto = info.State.LastSeq
	var events []evidence.Event
	at := map[string]int{} // id -> index in events
	err = Replay(ctx, js, rcfg, res.Upto, func(d Delivery) error {
		res.Read++
		if i, ok := at[d.Event.ID]; ok {
			events[i] = d.Event
			return nil
		}
		at[d.Event.ID] = len(events)
		events = append(events, d.Event)
		return nil
	})
	if err != nil {
		return res, nil, err
	}
	res.Distinct = int64(len(events))
	p, err := res.selectWrite(events, cfg, w)
	if p != nil {
		p.rcfg = rcfg
	}
	return res, p, err
}

// PullFrom writes to w what Pull would of a stream holding events (an
// archive's, read from its store): the same attribution over all of
// them, the same choice, the same order. Copies of an id are one event,
// the last given.
func PullFrom(events []evidence.Event, cfg PullConfig, w io.Writer) (PullResult, error) {
	res := PullResult{ByAgent: map[string]int64{}, Read: int64(len(events))}
	at := map[string]int{}
	var distinct []evidence.Event
	for _, ev := range events {
		if i, ok := at[ev.ID]; ok {
			distinct[i] = ev
			continue
		}
		at[ev.ID] = len(distinct)
		distinct = append(distinct, ev)
	}
	res.Distinct = int64(len(distinct))
	_, err := res.selectWrite(distinct, cfg, w)
	return res, err
}

// selectWrite attributes events as a workspace holding all of them
// would, and writes those of cfg's agents within its span and every
// identity record up to Until, in (time, id) order.
func (res *PullResult) selectWrite(events []evidence.Event, cfg PullConfig, w io.Writer) (*pulled, error) {
	attributed := slices.Clone(events)
	id, keys := attribution.AttributeAllKeys(attributed)
	want := map[string]bool{}
	for _, a := range cfg.Agents {
		want[a] = true
	}
	// whose evidence an attributed event is: its agent, or its candidates
	mine := func(ev *evidence.Event) bool {
		if want[ev.Agent] {
			return true
		}
		for _, t := range ev.Tags {
			if c, ok := strings.CutPrefix(t, "candidate:"); ok && want[c] {
				return true
			}
		}
		return false
	}
	within := func(t time.Time) bool {
		return (cfg.Since.IsZero() || !t.Before(cfg.Since)) && (cfg.Until.IsZero() || !t.After(cfg.Until))
	}
	var keep []int
	for i := range events {
		ev := &attributed[i]
		key := keys[i] && (cfg.Until.IsZero() || !ev.Time.After(cfg.Until))
		if !key && !(mine(ev) && within(ev.Time)) {
			continue
		}
		keep = append(keep, i)
		if key {
			res.Keys++
		}
		if want[ev.Agent] {
			res.ByAgent[ev.Agent]++
		}
	}
	sort.SliceStable(keep, func(a, b int) bool {
		x, y := &events[keep[a]], &events[keep[b]]
		if !x.Time.Equal(y.Time) {
			return x.Time.Before(y.Time)
		}
		return x.ID < y.ID
	})
	p := &pulled{id: id, written: map[string]bool{}, mine: mine, within: within}
	for _, i := range keep {
		if err := res.write(w, &events[i]); err != nil {
			return nil, err
		}
		p.written[Key(&events[i])] = true
	}
	return p, nil
}

// write writes one event of the pull to w.
func (res *PullResult) write(w io.Writer, ev *evidence.Event) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("write event %s: %w", ev.ID, err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write pulled events: %w", err)
	}
	res.Selected++
	if res.First.IsZero() || ev.Time.Before(res.First) {
		res.First = ev.Time
	}
	if ev.Time.After(res.Last) {
		res.Last = ev.Time
	}
	return nil
}
