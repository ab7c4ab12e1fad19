package attribution_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/attribution/attributiontest"
	"github.com/cordon-ir/cordon/evidence"
)

// reuse builds two sessions bound to one IP, the second from 11:00; the
// first acts last at lastA (and ends at endA unless zero), the second at
// 11:05; a Squid line from the IP at 11:10.
func reuse(lastA, endA time.Time) []evidence.Event {
	ip := "10.0.9.4"
	ev := func(id, kind, agent, session string, t time.Time) evidence.Event {
		return evidence.Event{ID: id, Time: t, Source: evidence.SourceLedger, Format: "ledger", Kind: kind, Agent: agent, Session: session}
	}
	start := func(id, agent, session string, t time.Time) evidence.Event {
		e := ev(id, evidence.KindSessionStart, agent, session, t)
		e.SrcIP = ip
		return e
	}
	evs := []evidence.Event{
		start("a0", "agent-1", "s-1", at("2026-07-21T10:00:00Z")),
		ev("a1", evidence.KindToolCall, "agent-1", "s-1", at("2026-07-21T10:10:00Z")),
		ev("a2", evidence.KindToolCall, "agent-1", "s-1", lastA),
		start("b0", "agent-2", "s-2", at("2026-07-21T11:00:00Z")),
		ev("b1", evidence.KindToolCall, "agent-2", "s-2", at("2026-07-21T11:05:00Z")),
		{ID: "p1", Time: at("2026-07-21T11:10:00Z"), Source: evidence.SourceProxy, Format: "squid", Kind: evidence.KindNetRequest, SrcIP: ip, DstHost: "example.org"},
		{ID: "p0", Time: at("2026-07-21T10:20:00Z"), Source: evidence.SourceProxy, Format: "squid", Kind: evidence.KindNetRequest, SrcIP: ip, DstHost: "example.org"},
	}
	if !endA.IsZero() {
		evs = append(evs, ev("a3", evidence.KindSessionEnd, "agent-1", "s-1", endA))
	}
	return evs
}

func byID(evs []evidence.Event, id string) evidence.Event {
	for _, e := range evs {
		if e.ID == id {
			return e
		}
	}
	panic("no event " + id)
}

// A hand-over (the first session ended, or fell silent, before the second
// started) moves the key; two sessions acting on one key after the later
// start is a binding conflict, whatever order the records come in: the
// events in between are ambiguous between both, never reassigned.
func TestBindingConflictIsKeptNotResolved(t *testing.T) {
	cases := []struct {
		name       string
		lastA      time.Time
		endA       time.Time
		conflict   bool
		wantP1     string
		candidates []string
	}{
		{"ended before", at("2026-07-21T10:30:00Z"), at("2026-07-21T10:31:00Z"), false, "agent-2", nil},
		{"silent after", at("2026-07-21T10:30:00Z"), time.Time{}, false, "agent-2", nil},
		{"killed at the hand-over", at("2026-07-21T10:59:00Z"), at("2026-07-21T11:00:00Z"), false, "agent-2", nil},
		{"both act", at("2026-07-21T11:20:00Z"), time.Time{}, true, "", []string{"agent-1", "agent-2"}},
		{"both act, first ends later", at("2026-07-21T11:20:00Z"), at("2026-07-21T11:30:00Z"), true, "", []string{"agent-1", "agent-2"}},
	}
	for _, c := range cases {
		for seed := int64(0); seed < 4; seed++ {
			t.Run(fmt.Sprintf("%s/order %d", c.name, seed), func(t *testing.T) {
				evs := reuse(c.lastA, c.endA)
				if seed > 0 {
					rand.New(rand.NewSource(seed)).Shuffle(len(evs), func(i, j int) { evs[i], evs[j] = evs[j], evs[i] })
				}
				id := attribution.AttributeAll(evs)
				conf := id.Conflicts()
				if got := len(conf) > 0; got != c.conflict {
					t.Fatalf("conflicts %+v, want conflict=%v", conf, c.conflict)
				}
				if c.conflict {
					k := conf[0]
					if k.Via != attribution.ViaIP || k.Value != "10.0.9.4" || k.Earlier.Agent != "agent-1" || k.Later.Agent != "agent-2" || !k.EarlierActive.After(k.Later.Start) {
						t.Errorf("conflict %+v", k)
					}
				}
				p1 := byID(evs, "p1")
				if p1.Agent != c.wantP1 {
					t.Errorf("11:10 line attributed to %q via %q (tags %v), want %q", p1.Agent, p1.AttributedVia, p1.Tags, c.wantP1)
				}
				if slices.Contains(p1.Tags, attribution.TagBindingConflict) != c.conflict {
					t.Errorf("11:10 line tags %v: binding-conflict tag should be %v", p1.Tags, c.conflict)
				}
				for _, cand := range c.candidates {
					if !slices.Contains(p1.Tags, "candidate:"+cand) {
						t.Errorf("11:10 line tags %v lack candidate %s", p1.Tags, cand)
					}
				}
				// before the later start, the key is the first session's alone
				if p0 := byID(evs, "p0"); p0.Agent != "agent-1" {
					t.Errorf("10:20 line attributed to %q, want agent-1", p0.Agent)
				}
			})
		}
	}
}

// The identity map read back from a store finds the same conflict: it
// asks the evidence whether both sessions acted after the hand-over.
func TestStoredIdentityProbesActivity(t *testing.T) {
	evs := reuse(at("2026-07-21T11:20:00Z"), time.Time{})
	st := attributiontest.Indexed(t, evs)
	id, err := attribution.SessionIdentity(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if c := id.Conflicts(); len(c) != 1 || c[0].Value != "10.0.9.4" {
		t.Fatalf("conflicts from the store: %+v", c)
	}
	p1 := byID(evs, "p1")
	if a := id.Attribute(&p1); a.Via != attribution.ViaAmbiguous || len(a.Candidates) != 2 {
		t.Errorf("11:10 line: %+v", a)
	}
	// the same records with the first session silent after 10:30: none
	quiet := attributiontest.Indexed(t, reuse(at("2026-07-21T10:30:00Z"), time.Time{}))
	if id, err = attribution.SessionIdentity(context.Background(), quiet); err != nil {
		t.Fatal(err)
	}
	if c := id.Conflicts(); len(c) != 0 {
		t.Fatalf("a hand-over read as a conflict: %+v", c)
	}
}

// Records streamed one at a time (as ingest does) report from when the
// attributions already made must be redone: the later start, not the time
// of the record that revealed the conflict.
func TestConflictReportsWhenAttributionChanges(t *testing.T) {
	for _, sorted := range []bool{false, true} {
		evs := reuse(at("2026-07-21T11:20:00Z"), time.Time{})
		if sorted {
			sort.SliceStable(evs, func(i, j int) bool { return evs[i].Time.Before(evs[j].Time) })
		}
		revealedFrom(t, evs)
	}
}

func revealedFrom(t *testing.T, evs []evidence.Event) {
	t.Helper()
	id := attribution.NewIdentity(nil)
	var since time.Time
	for _, e := range evs {
		if e.Source != evidence.SourceLedger {
			continue
		}
		before := len(id.Conflicts())
		from, ok := id.ObserveFrom(&e)
		if before == 0 && len(id.Conflicts()) > 0 { // the record that reveals it
			since = from
			if !ok {
				t.Errorf("%s reveals the conflict and changes nothing", e.ID)
			}
		}
	}
	if want := at("2026-07-21T11:00:00Z"); !since.Equal(want) {
		t.Errorf("re-attribute from %v, want %v", since, want)
	}
}

// A tool call that names a session the gateway issued to another agent is
// flagged like a binding conflict (both agents candidates); its agent is
// kept as written, and a call in its own session is not flagged.
func TestToolCallInAnotherAgentsSessionIsFlagged(t *testing.T) {
	ev := func(id, kind, agent, session string, m int) evidence.Event {
		return evidence.Event{ID: id, Time: at("2026-07-21T10:00:00Z").Add(time.Duration(m) * time.Minute), Source: evidence.SourceLedger,
			Format: "cordon-ledger", Kind: kind, Agent: agent, Session: session}
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}} {
		all := []evidence.Event{ev("s", evidence.KindSessionStart, "agent-1", "s-1", 0), ev("own", evidence.KindToolCall, "agent-1", "s-1", 1),
			ev("forged", evidence.KindToolCall, "agent-2", "s-1", 2)}
		evs := []evidence.Event{all[order[0]], all[order[1]], all[order[2]]}
		attribution.AttributeAll(evs)
		f, own := byID(evs, "forged"), byID(evs, "own")
		if f.Agent != "agent-2" || !slices.Contains(f.Tags, attribution.TagBindingConflict) || !slices.Contains(f.Tags, "candidate:agent-1") || !slices.Contains(f.Tags, "candidate:agent-2") {
			t.Errorf("order %v: forged call %s tags %v", order, f.Agent, f.Tags)
		}
		if len(own.Tags) != 0 {
			t.Errorf("order %v: own call tagged %v", order, own.Tags)
		}
	}
}

// Kubernetes identities are namespace-qualified: the service account
// runner of namespace ns-a is not runner of ns-b, and a call made as one
// is never the other's holder's.
func TestServiceAccountsOfTwoNamespacesAreTwoIdentities(t *testing.T) {
	start := evidence.Event{ID: "s", Time: at("2026-07-21T10:00:00Z"), Source: evidence.SourceLedger, Format: "cordon-ledger",
		Kind: evidence.KindSessionStart, Agent: "agent-1", Session: "s-1", Credential: []string{"system:serviceaccount:ns-a:runner"}}
	call := func(id, user string) evidence.Event {
		return evidence.Event{ID: id, Time: at("2026-07-21T10:05:00Z"), Source: evidence.SourceAudit, Format: "k8s-audit",
			Kind: evidence.KindAPICall, User: user, Credential: []string{user}, SrcIP: "10.9.9.9"}
	}
	evs := []evidence.Event{start, call("a", "system:serviceaccount:ns-a:runner"), call("b", "system:serviceaccount:ns-b:runner")}
	attribution.AttributeAll(evs)
	if a := byID(evs, "a"); a.Agent != "agent-1" {
		t.Errorf("ns-a runner: %q", a.Agent)
	}
	if b := byID(evs, "b"); b.Agent != "" {
		t.Errorf("ns-b runner attributed to %q via %q", b.Agent, b.AttributedVia)
	}
}
