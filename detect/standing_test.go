package detect_test

import (
	"context"
	"sort"
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
	// agent-6: a record of another format ends its second session; the
	// gateway ends only the first, killed: no kill of the agent
	other6 := end("e6b", "agent-6", "s6b", "completed", 100)
	other6.Format = "otlp"
	// agent-7 (no relation to the bench's): another format says its
	// session ended first; the gateway's kill still counts
	other7 := end("e7x", "agent-7", "s7", "completed", 290)
	other7.Format = "otlp"
	// agent-1's own telemetry opens sessions, one under the gateway's
	// session's name: neither removes the gateway's kill
	tele1, tele1x := start("t1", "agent-1", "s1", "", "", 10), start("t1x", "agent-1", "conv-9", "", "", 20)
	tele1.Format, tele1x.Format = "otlp", "otlp"
	evs := []evidence.Event{
		start("s1", "agent-1", "s1", "10.0.0.1", "c1", 0), start("s2", "agent-2", "s2", "10.0.0.2", "c2", 0),
		start("s3", "agent-3", "s3", "10.0.0.3", "c3", 0), start("s4", "agent-4", "s4", "10.0.0.4", "c4", 0),
		start("s5", "agent-5", "s5", "10.0.0.5", "c5", 0),
		start("s6a", "agent-6", "s6a", "10.0.0.6", "c6", 0), start("s6b", "agent-6", "s6b", "10.0.0.16", "c16", 0),
		start("s7", "agent-7", "s7", "10.0.0.7", "c7", 0),
		start("s8a", "agent-8", "s8a", "10.0.0.8", "c8", 0), start("s8b", "agent-8", "s8b", "10.0.0.18", "c18", 0),
		other6, other7, tele1, tele1x,
		call("a1", "agent-1", "s1", 60), call("a5", "agent-5", "s5", 60),
		// agent-5 leaves a process behind, which nothing records ending
		{ID: "p5", Time: at(90), Source: evidence.SourceSensor, Format: "tetragon", Kind: evidence.KindProcExec, Agent: "agent-5",
			AttributedVia: "container", Container: "c5", Pid: 4242, ExecID: "x5", Cmdline: "nohup python3 beacon.py &"},
		end("e1", "agent-1", "s1", "killed", 300), end("e2", "agent-2", "s2", "killed", 300),
		end("e3", "agent-3", "s3", "completed", 300), forged, end("e5", "agent-5", "s5", "killed", 300),
		end("e6a", "agent-6", "s6a", "killed", 300), end("e7", "agent-7", "s7", "killed", 300),
		// agent-8: its two sessions end at one instant, one killed, one not
		end("e8a", "agent-8", "s8a", "killed", 300), end("e8b", "agent-8", "s8b", "completed", 300),
		start("s2b", "agent-2", "s2b", "10.0.0.2", "c2", 360),
		call("a2", "agent-2", "s2b", 400),
	}
	sort.SliceStable(evs, func(i, j int) bool { return detect.Before(&evs[i], &evs[j]) })
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
	if len(v.Standings) != 3 {
		t.Fatalf("standings of %d agents, want agent-1, agent-5 and agent-7: %+v", len(v.Standings), v.Standings)
	}
	if st, ok := v.Standings["agent-7"]; !ok || !st.Kill.Equal(at(300)) {
		t.Errorf("agent-7, killed by the gateway after another format ended it: %+v", st)
	}
	one, five := v.Standings["agent-1"], v.Standings["agent-5"]
	if !one.Kill.Equal(at(300)) || one.By != detect.HarnessKill || !one.Contained || one.Holds {
		t.Errorf("agent-1: %+v", one)
	}
	if !five.Kill.Equal(at(300)) || five.Contained || !five.Holds {
		t.Errorf("agent-5, its process not seen to end: %+v", five)
	}
	if got := p.Standings(); len(got) != 3 || got["agent-1"] != one {
		t.Errorf("Standings after the view: %+v", got)
	}
	for _, r := range v.Ranks {
		switch r.Agent {
		case "agent-1", "agent-7":
			if !r.Contained {
				t.Errorf("%s ranks %+v", r.Agent, r)
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
