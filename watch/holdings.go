package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// What each agent holds goes beside its findings: a key-value bucket
// <findings stream>_HOLDINGS, one key per agent (holdingKey), holding the capability.Holding its watcher last computed — the
// part of a capability set the ranking of agents reads — and deleted when
// the agent acquired nothing any more (a late session record gave its
// events to another). A console of the fleet ranks agents from it and
// the findings as the incident's console ranks them from the capability
// sets (detect.RankInput.Holdings).

// HoldingsBucket is the bucket of the agents' holdings beside the findings
// stream named stream.
func HoldingsBucket(stream string) string { return stream + "_HOLDINGS" }

// Holding is one agent's value in the bucket.
type Holding struct {
	Agent string `json:"agent"`
	capability.Holding
	// Standing is the agent's at the kill its harness recorded
	// (detect.Pass.Standings): whether it is contained. None while no
	// kill is recorded: nothing is judged before the agent is stopped.
	Standing *capability.Standing `json:"standing,omitempty"`
	// Watermark is the time of the last event the pass had taken, Events
	// how many it had, when the holding was computed.
	Watermark time.Time `json:"watermark"`
	Events    int64     `json:"events"`
}

// A watcher computes the holdings at most every holdingsEvery, and not
// more often than every holdingsCost times what the last computation
// took: the pass's View copies and finishes the sets of the agents that
// changed, which for an agent that keeps acting is its whole set, and a
// busy watcher has events to take.
const (
	holdingsEvery = time.Second
	holdingsCost  = 4
)

// EnsureHoldings opens the holdings bucket beside stream, creating it if
// it is missing, kept by replicas servers (0: one).
func EnsureHoldings(ctx context.Context, js jetstream.JetStream, stream string, replicas int) (jetstream.KeyValue, error) {
	name := HoldingsBucket(stream)
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      name,
		Description: "what each agent holds, as cordon watch last computed it",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    max(replicas, 1),
	})
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", name, err)
	}
	return kv, nil
}

// holdings is what a watcher put in the bucket.
type holdings struct {
	js     jetstream.JetStream
	kv     jetstream.KeyValue
	put    map[string]held // by agent
	at     time.Time
	gap    time.Duration
	events int64 // the pass's events when last computed (-1: never)
}

// held is what the bucket holds of an agent.
type held struct {
	capability.Holding
	standing *capability.Standing
}

func (a held) equal(b held) bool {
	return a.Holding.Equal(b.Holding) && (a.standing == nil) == (b.standing == nil) && (a.standing == nil || a.standing.Equal(*b.standing))
}

// openHoldings reads which of p's agents have a holding in kv: one the
// watcher does not find again (it was stopped when the agent's last
// acquisition went to another) is deleted at its first computation.
func openHoldings(ctx context.Context, js jetstream.JetStream, kv jetstream.KeyValue, p Partition) (*holdings, error) {
	h := &holdings{js: js, kv: kv, put: map[string]held{}, events: -1}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", kv.Bucket(), err)
	}
	for key := range keys.Keys() {
		if agent, err := agentOfKey(key); err == nil && p.Owns(agent) {
			h.put[agent] = held{} // what it was: unknown
		}
	}
	return h, nil
}

// publishHoldings puts every holding of the watcher's agents that changed
// since it last did, and deletes those of agents that hold nothing now.
func (w *Watcher) publishHoldings(ctx context.Context, now time.Time) error {
	h := w.holdings
	if h == nil || w.pass == nil || now.Sub(h.at) < h.gap || w.pass.Events() == h.events {
		return nil
	}
	start := time.Now()
	stamp := Holding{Watermark: w.pass.Last().Time, Events: w.pass.Events()}
	h.at, h.events = now, stamp.Events
	// a watcher that answers verdicts has their view made (or makes it
	// for both); one that does not needs no findings or ranking for this
	var holdingsNow map[string]capability.Holding
	var standings map[string]capability.Standing
	if w.verdicts != nil {
		v := w.passView()
		holdingsNow, standings = v.Holdings, v.Standings
	} else {
		holdingsNow = w.pass.Holdings()
		standings = w.pass.Standings()
	}
	cur := map[string]held{}
	for agent, hd := range holdingsNow {
		if len(hd.Acquired) > 0 {
			cur[agent] = held{Holding: hd}
		}
	}
	for agent, st := range standings {
		c := cur[agent]
		c.standing = &st
		cur[agent] = c
	}
	// every changed holding is sent at once, then the acknowledgements
	// waited for: a thousand agents changing cost one round trip, not a
	// thousand (a put is a publish on the bucket's subject of the key)
	var msgs []outgoing
	for agent, hd := range cur {
		if !w.cfg.Partition.Owns(agent) {
			continue
		}
		if old, ok := h.put[agent]; ok && old.equal(hd) {
			continue
		}
		v := stamp
		v.Agent, v.Holding, v.Standing = agent, hd.Holding, hd.standing
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("holding of %s: %w", agent, err)
		}
		m := nats.NewMsg("$KV." + h.kv.Bucket() + "." + holdingKey(agent))
		m.Data = b
		msgs = append(msgs, outgoing{id: agent, label: "holding of " + agent, msg: m})
	}
	if _, err := send(ctx, h.js, msgs); err != nil {
		return err
	}
	for _, o := range msgs {
		h.put[o.id] = cur[o.id]
	}
	for agent := range h.put {
		if _, ok := cur[agent]; ok || !w.cfg.Partition.Owns(agent) {
			continue
		}
		if err := h.kv.Delete(ctx, holdingKey(agent)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
			return fmt.Errorf("holding of %s: %w", agent, err)
		}
		delete(h.put, agent)
	}
	h.gap = max(holdingsEvery, holdingsCost*time.Since(start))
	return nil
}

// FollowHoldings hands fn every agent's holding in the bucket beside
// stream, then each change as it is made (a deleted key as the agent with
// the zero Holding), until ctx ends; status says what it is doing, as
// FollowFindings's does. A value that does not decode is skipped and
// counted in the status.
func FollowHoldings(ctx context.Context, js jetstream.JetStream, stream string, fn func(Holding), status func(string)) error {
	if stream == "" {
		stream = DefaultFindingsStream
	}
	for {
		err := followHoldings(ctx, js, stream, fn, status)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		status(fmt.Sprintf("bucket %s: %v; retrying", HoldingsBucket(stream), err))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func followHoldings(ctx context.Context, js jetstream.JetStream, stream string, fn func(Holding), status func(string)) error {
	kv, err := js.KeyValue(ctx, HoldingsBucket(stream))
	if err != nil {
		return err
	}
	wt, err := kv.WatchAll(ctx)
	if err != nil {
		return err
	}
	defer wt.Stop()
	bad := 0
	status("")
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-wt.Updates():
			if !ok {
				return errors.New("the watch ended")
			}
			if e == nil {
				continue // every value there was when the watch began
			}
			if e.Operation() != jetstream.KeyValuePut {
				if agent, err := agentOfKey(e.Key()); err == nil {
					fn(Holding{Agent: agent})
				}
				continue
			}
			var h Holding
			if err := json.Unmarshal(e.Value(), &h); err != nil || holdingKey(h.Agent) != e.Key() {
				bad++
				status(fmt.Sprintf("(%d unreadable holdings skipped)", bad))
				continue
			}
			fn(h)
		}
	}
}

// holdingKey is agent's key in the holdings bucket: its subject token
// (fleet.Token) with '%' written '=', since a key may hold [-/_=.A-Za-z0-9]
// only and a token never holds '='.
func holdingKey(agent string) string { return strings.ReplaceAll(fleet.Token(agent), "%", "=") }

// agentOfKey reverses holdingKey.
func agentOfKey(key string) (string, error) { return fleet.Untoken(strings.ReplaceAll(key, "=", "%")) }
