package capability

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

var t0 = time.Date(2026, 8, 11, 10, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

// coverage of the named sources, each reporting at the given minutes.
func coverage(events ...evidence.Event) *Coverage {
	c := NewCoverage()
	for i := range events {
		c.Observe(&events[i])
	}
	return c
}

func ev(source, format string, min int) evidence.Event {
	return evidence.Event{ID: fmt.Sprintf("%s-%d", format, min), Source: source, Format: format, Time: at(min)}
}

func proxyCred() *Capability {
	return &Capability{Agent: "agent-12", Kind: Credential, Value: "px-s231", Origin: Granted, Owner: "agent-12", CredKind: "proxy-auth", How: "issued"}
}

func TestJudgeTheOneRule(t *testing.T) {
	kill := at(21)
	proxyAll := coverage(ev("proxy", "squid", 0), ev("proxy", "squid", 59))
	authEnd := End{At: at(34), How: "revoked", ID: "e-rev", By: "CloudTrail", Authority: Authoritative}
	claimEnd := End{At: at(30), How: "revoked credential px-s231", ID: "e-hi", By: "a human_intervention record", Authority: Claimed}
	tests := []struct {
		name  string
		cap   func() *Capability
		cov   *Coverage
		state State
		line  []string // substrings of the line
	}{
		{"no use after the kill, proxy watched", func() *Capability {
			c := proxyCred()
			c.Uses = []Use{{Time: at(10), ID: "u1", Source: "proxy"}}
			return c
		}, proxyAll, Stopped, []string{"not used after", "reported until 10:59:00"}},
		{"used after the kill, nothing ended it", func() *Capability {
			c := proxyCred()
			c.Uses = []Use{{Time: at(25), ID: "u1", From: "10.30.8.15"}, {Time: at(33), ID: "u2", From: "10.30.8.15"}}
			return c
		}, proxyAll, Live, []string{"live", "used 2 times after the kill", "last 10:33:00 from 10.30.8.15"}},
		{"a claimed end never stops it", func() *Capability {
			c := proxyCred()
			c.Uses = []Use{{Time: at(25), ID: "u1"}}
			c.Ends = []End{claimEnd}
			return c
		}, proxyAll, Live, []string{"live", "claimed ended", "nothing its issuer recorded corroborates"}},
		{"used after the kill then ended by its issuer", func() *Capability {
			c := proxyCred()
			c.Uses = []Use{{Time: at(25), ID: "u1", From: "10.30.8.15"}, {Time: at(33), ID: "u2", From: "10.30.8.15"}}
			c.Ends = []End{authEnd}
			return c
		}, proxyAll, Stopped, []string{"stopped at 10:34:00", "live for 13m0s after the kill", "last use 10:33:00"}},
		{"used after its authoritative end", func() *Capability {
			c := proxyCred()
			c.Uses = []Use{{Time: at(40), ID: "u1"}}
			c.Ends = []End{authEnd}
			return c
		}, proxyAll, Live, []string{"live", "after revoked 10:34:00"}},
		{"refused uses after the kill are tries, not uses", func() *Capability {
			c := proxyCred()
			c.Uses = []Use{{Time: at(25), ID: "u1", Refused: true}}
			return c
		}, proxyAll, Stopped, []string{"not used after"}},
		{"an upload in flight at the kill is not a use after it", func() *Capability {
			c := proxyCred()
			c.Uses = []Use{{Time: at(22), Dur: Millis(3 * time.Minute), ID: "up"}}
			return c
		}, proxyAll, Stopped, []string{"in flight at the kill", "began 10:19:00", "ended at 10:22:00"}},
		{"a tool call in flight at a session's end is named with the end", func() *Capability {
			return &Capability{Agent: "a", Kind: ToolCall, Value: "s-1", Origin: Granted,
				Uses: []Use{{Time: at(23), Dur: Millis(4 * time.Minute), ID: "c-133"}},
				Ends: []End{{At: at(21), How: "session ended (killed)", ID: "end", By: "the tool gateway's ledger", Authority: Authoritative}}}
		}, coverage(ev("ledger", "cordon-ledger", 59)), Stopped, []string{"before the kill", "in flight at the kill", "ended at 10:23:00"}},
		{"a stop after many uses names its end and the use in flight", func() *Capability {
			c := &Capability{Agent: "a", Kind: ToolCall, Value: "s-1", Origin: Granted,
				Uses: []Use{{Time: at(23), Dur: Millis(4 * time.Minute), ID: "c-133"}},
				Ends: []End{{At: at(50), How: "session ended (killed)", ID: "end", By: "the tool gateway's ledger", Authority: Authoritative}}}
			for i := range 25 {
				c.Uses = append(c.Uses, Use{Time: at(24 + i), ID: fmt.Sprint("c-", 200+i)})
			}
			return c
		}, coverage(ev("ledger", "cordon-ledger", 59)), Stopped, []string{"stopped at 10:50:00", "in flight at the kill"}},
		{"no source can see it", func() *Capability {
			c := proxyCred()
			c.CredKind = "stripe-key"
			return c
		}, proxyAll, CannotTell, []string{"cannot tell", "audit log of the service that accepts it"}},
		{"an AWS key with no CloudTrail and a recorded revocation", func() *Capability {
			c := proxyCred()
			c.CredKind, c.Ends = "aws-access-key", []End{claimEnd}
			return c
		}, proxyAll, CannotTell, []string{"cannot tell", "an AWS CloudTrail log is not in this incident", "claimed ended"}},
		{"a secret file is never verified", func() *Capability {
			return &Capability{Agent: "agent-12", Kind: Credential, Value: "/run/secrets/eval/allowlist.txt", Origin: Acquired}
		}, proxyAll, CannotTell, []string{"secret file", "the service the secret in it is for"}},
		{"the observer stopped before the kill", func() *Capability { return proxyCred() },
			coverage(ev("proxy", "squid", 0), ev("proxy", "squid", 20)), CannotTell, []string{"reported nothing after the kill"}},
		{"a sensor gap inside the window", func() *Capability {
			return &Capability{Agent: "a", Kind: Process, Value: "pid 7", Origin: Acquired, How: "nohup x",
				Ends: []End{{At: at(50), How: "exited", ID: "x", By: "the runtime sensor", Authority: Authoritative}}}
		}, coverage(ev("sensor", "tetragon", 0), ev("sensor", "tetragon", 59)), Stopped, []string{"stopped at 10:50:00"}},
		{"a process nothing ended is live", func() *Capability {
			return &Capability{Agent: "a", Kind: Process, Value: "pid 7", Origin: Acquired, How: "nohup x", Acquired: []string{"p1"}}
		}, coverage(ev("sensor", "tetragon", 59)), Live, []string{"nothing shows it ended"}},
		{"a crontab only a person says was removed", func() *Capability {
			return &Capability{Agent: "a", Kind: Schedule, Value: "/var/spool/cron/crontabs/agent", Origin: Acquired,
				Ends: []End{{At: at(45), How: "removed crontab", By: "a human_intervention record", Authority: Claimed}}}
		}, coverage(ev("sensor", "tetragon", 59)), CannotTell, []string{"only a claimed end", "removed crontab"}},
		{"a tool call with no result across the kill", func() *Capability {
			return &Capability{Agent: "a", Kind: ToolCall, Value: "s-1", Origin: Granted,
				Uses: []Use{{Time: at(5), ID: "c1"}, {Time: at(20), ID: "c2", Open: true}}}
		}, coverage(ev("ledger", "cordon-ledger", 59)), CannotTell, []string{"c2 began 10:20:00", "no record of its end"}},
	}
	// among the events a verdict names: a stop rests on the use in flight
	ids := map[string][]string{
		"an upload in flight at the kill is not a use after it":          {"up"},
		"a tool call in flight at a session's end is named with the end": {"end", "c-133"},
		"a stop after many uses names its end and the use in flight":     {"end", "c-133", "c-200"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Judge(tc.cap(), kill, time.Time{}, tc.cov)
			if v.State != tc.state {
				t.Errorf("state %q, want %q: %s", v.State, tc.state, v.Line)
			}
			for _, s := range tc.line {
				if !strings.Contains(v.Line, s) {
					t.Errorf("line %q lacks %q", v.Line, s)
				}
			}
			if len(v.Events) > maxEvents {
				t.Errorf("%d events named, more than %d", len(v.Events), maxEvents)
			}
			for _, id := range ids[tc.name] {
				if !slices.Contains(v.Events, id) {
					t.Errorf("events %v lack %s: %s", v.Events, id, v.Line)
				}
			}
		})
	}
}

func TestJudgeGapMakesCannotTell(t *testing.T) {
	gap := ev("sensor", "tetragon", 30)
	gap.Kind = evidence.KindSensorGap
	cov := coverage(ev("sensor", "tetragon", 25), gap, ev("sensor", "tetragon", 59))
	c := &Capability{Agent: "a", Kind: Credential, Value: "k", Origin: Granted, Owner: "a", CredKind: "proxy-auth"}
	// a proxy credential is not the sensor's: no gap
	if v := Judge(c, at(21), time.Time{}, coverage(ev("proxy", "squid", 59))); v.State != Stopped {
		t.Fatalf("state %q: %s", v.State, v.Line)
	}
	ToolCalls := &Capability{Agent: "a", Kind: Schedule, Value: "/etc/cron.d/x", Origin: Acquired,
		Ends: []End{{At: at(22), How: "removed", ID: "rm", By: "the runtime sensor", Authority: Authoritative}}}
	if v := Judge(ToolCalls, at(21), time.Time{}, cov); v.State != Stopped {
		t.Fatalf("an authoritative end is the sensor's own record: %q %s", v.State, v.Line)
	}
	if g, ok := cov.GapIn(ObsSensor, at(21), at(59)); !ok || !g.From.Equal(at(25)) {
		t.Fatalf("gap %+v %v, want from 10:25", g, ok)
	}
}

func TestJudgeAsOf(t *testing.T) {
	c := proxyCred()
	c.Uses = []Use{{Time: at(25), ID: "u1"}}
	cov := coverage(ev("proxy", "squid", 59))
	if v := Judge(c, at(21), at(24), cov); v.State != CannotTell {
		t.Errorf("as of 10:24 the proxy had reported nothing after the kill: %q %s", v.State, v.Line)
	}
	if v := Judge(c, at(21), time.Time{}, cov); v.State != Live {
		t.Errorf("with all the evidence: %q %s", v.State, v.Line)
	}
}

func TestCompactKeepsTheVerdict(t *testing.T) {
	c := proxyCred()
	for i := range 5000 {
		c.Uses = append(c.Uses, Use{Time: t0.Add(time.Duration(i) * 700 * time.Millisecond), ID: fmt.Sprintf("u%d", i), Refused: i%3 == 0})
	}
	cov := coverage(ev("proxy", "squid", 90))
	for _, kill := range []time.Time{at(3), at(30), at(58), at(59)} {
		full := Judge(c, kill, time.Time{}, cov)
		cc := *c
		cc.Uses = append([]Use(nil), c.Uses...)
		cc.Compact()
		if len(cc.Uses) > 6*60 || cc.UseCount() != 5000 {
			t.Fatalf("compacted to %d uses, counting %d", len(cc.Uses), cc.UseCount())
		}
		thin := Judge(&cc, kill, time.Time{}, cov)
		if thin.State != full.State || (thin.LastUse == nil) != (full.LastUse == nil) || thin.LastUse != nil && thin.LastUse.ID != full.LastUse.ID {
			t.Errorf("kill %s: compacted %q %+v, full %q %+v", kill, thin.State, thin.LastUse, full.State, full.LastUse)
		}
		if thin.UsesAfter > full.UsesAfter {
			t.Errorf("kill %s: compacted counts %d uses after, more than %d", kill, thin.UsesAfter, full.UsesAfter)
		}
	}
}

func TestAssessContainedAtTheLatestEnd(t *testing.T) {
	cred := proxyCred()
	cred.Uses = []Use{{Time: at(30), ID: "u1"}}
	cred.Ends = []End{{At: at(34), How: "refused by the proxy from then on", ID: "r1", By: "the proxy", Authority: Authoritative}}
	set := NewSet(map[string][]*Capability{"agent-12": {cred}})
	cov := coverage(ev("proxy", "squid", 59), ev("ledger", "cordon-ledger", 40), ev("sensor", "tetragon", 40))
	a := Assess(set, []string{"agent-12"}, at(21), time.Time{}, cov)
	if !a.Contained || !a.ContainedAt.Equal(at(34)) {
		t.Fatalf("contained %v at %s, want at 10:34: %s", a.Contained, a.ContainedAt, a.Headline())
	}
	l, _ := a.Layer(LayerCredentials)
	if !l.LiveAfterKill || !strings.Contains(a.Headline(), "live after the kill until then: cached-credentials") {
		t.Errorf("layer %+v; headline %q", l, a.Headline())
	}
	// no proxy, no ledger: the empty layers cannot be told
	a = Assess(set, []string{"agent-12"}, at(21), time.Time{}, coverage(ev("proxy", "squid", 59)))
	if a.Contained || a.State != CannotTell {
		t.Fatalf("state %q contained %v: %s", a.State, a.Contained, a.Headline())
	}
	if l, _ := a.Layer(LayerProcesses); l.State != CannotTell || !strings.Contains(l.Line, "runtime sensor") {
		t.Errorf("processes layer %+v", l)
	}
	// nothing judged before a kill time
	if a := Assess(set, []string{"agent-12"}, time.Time{}, time.Time{}, cov); a.State != "" || a.Contained {
		t.Errorf("no kill: %+v", a)
	}
}
