package detect_test

import (
	"context"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// TestHarnessKillGivesAStanding: an agent whose last session the gateway's
// ledger ended with reason killed is assessed at that kill, and the
// ranking says contained or not from that Assessment alone. A session
// that ended otherwise, a "killed" no issuer wrote, a kill undone by a new
// session, and a kill not yet reached by the pass give none.
func TestHarnessKillGivesAStanding(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	start := func(id, agent, sess, ip, ctr string, s int) evidence.Event {
		return evidence.Event{ID: id, Time: at(s), Source: evidence.SourceLedger, Format: "cordon-ledger", Kind: evidence.KindSessionStart,
			Agent: agent, Session: sess, SrcIP: ip, Container: ctr}
	}
	end := func(id, agent, sess, reason string, s int) evidence.Event {
		return evidence.Event{ID: id, Time: at(s), Source: evidence.SourceLedger, Format: "cordon-ledger", Kind: evidence.KindSessionEnd,
			Agent: agent, Session: sess, Status: reason}
	}
	call := func(id, agent, sess string, s int) evidence.Event {
		return evidence.Event{ID: id, Time: at(s), Source: evidence.SourceLedger, Format: "cordon-ledger", Kind: evidence.KindToolCall,
			Agent: agent, Session: sess, Tool: "bash", Cmdline: "ls -la", CallID: "c-" + id}
	}
	forged := end("e4", "agent-4", "s4", "killed", 300)
	forged.Source, forged.Format = evidence.SourceProxy, "squid"
	evs := []evidence.Event{
		start("s1", "agent-1", "s1", "10.0.0.1", "c1", 0), start("s2", "agent-2", "s2", "10.0.0.2", "c2", 0),
		start("s3", "agent-3", "s3", "10.0.0.3", "c3", 0), start("s4", "agent-4", "s4", "10.0.0.4", "c4", 0),
		start("s5", "agent-5", "s5", "10.0.0.5", "c5", 0),
		call("a1", "agent-1", "s1", 60), call("a5", "agent-5", "s5", 60),
		// agent-5 leaves a process behind, which nothing records ending
		{ID: "p5", Time: at(90), Source: evidence.SourceSensor, Format: "tetragon", Kind: evidence.KindProcExec, Agent: "agent-5",
			AttributedVia: "container", Container: "c5", Pid: 4242, ExecID: "x5", Cmdline: "nohup python3 beacon.py &"},
		end("e1", "agent-1", "s1", "killed", 300), end("e2", "agent-2", "s2", "killed", 300),
		end("e3", "agent-3", "s3", "completed", 300), forged, end("e5", "agent-5", "s5", "killed", 300),
		start("s2b", "agent-2", "s2b", "10.0.0.2", "c2", 360),
		call("a2", "agent-2", "s2b", 400),
	}
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	src := detect.NewMemSource(evs)
	p, err := (&detect.Engine{Rules: rules}).Start(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if evs[i].ID == "e1" {
			// the pass has not reached the kill: its session is open yet
			if st := p.View().Standings; len(st) != 0 {
				t.Fatalf("before the session's end: %+v", st)
			}
		}
		if err := p.Add(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	v := p.View()
	if len(v.Standings) != 2 {
		t.Fatalf("standings of %d agents, want agent-1 and agent-5: %+v", len(v.Standings), v.Standings)
	}
	one, five := v.Standings["agent-1"], v.Standings["agent-5"]
	if !one.Kill.Equal(at(300)) || one.By != detect.HarnessKill || !one.Contained || one.Holds {
		t.Errorf("agent-1: %+v", one)
	}
	if !five.Kill.Equal(at(300)) || five.Contained || !five.Holds {
		t.Errorf("agent-5, its process not seen to end: %+v", five)
	}
	if got := p.Standings(); len(got) != 2 || got["agent-1"] != one {
		t.Errorf("Standings after the view: %+v", got)
	}
	for _, r := range v.Ranks {
		switch r.Agent {
		case "agent-1":
			if !r.Contained {
				t.Errorf("agent-1 ranks %+v", r)
			}
		case "agent-5":
			if r.Contained || !r.Open {
				t.Errorf("agent-5 ranks %+v", r)
			}
		default:
			if r.Contained {
				t.Errorf("%s ranks contained with no kill of its harness: %+v", r.Agent, r)
			}
		}
	}
}
