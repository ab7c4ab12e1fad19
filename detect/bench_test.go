package detect_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// synthetic builds an incident of about n events: 40 agents in sandboxes
// of their own (a few sessions per agent, IPs reused across sessions), each
// working through tool calls with their decisions and results, proxy
// requests (some refused), process executions and connections seen by
// the sensors, file writes, and a little of everything the detectors look
// for, so that every rule has work to do. Proxy and sensor events carry
// no agent: attribution has to find it.
func synthetic(n int) []evidence.Event {
	rng := rand.New(rand.NewSource(7))
	start := time.Date(2026, 7, 21, 8, 0, 0, 0, time.UTC)
	const agents = 40
	var evs []evidence.Event
	id := 0
	add := func(ev evidence.Event) {
		id++
		ev.ID = fmt.Sprintf("%016x", id)
		if ev.Message == "" {
			ev.Message = ev.Kind + " " + ev.Cmdline + " " + ev.DstHost
		}
		evs = append(evs, ev)
	}
	hosts := []string{"pypi.org", "files.pythonhosted.org", "github.com", "registry.npmjs.org"}
	cmds := []string{"python -m pytest -q tests/", "pip install -q -r requirements.txt", "git status --short",
		"npm test -- --silent", "cat README.md", "ls -la", "grep -rn TODO src"}
	perSession := n / (agents * 3)
	for s := 0; s < agents*3; s++ {
		agent := fmt.Sprintf("agent-%d", s%agents)
		sess := fmt.Sprintf("s-%d", s)
		ip := fmt.Sprintf("10.1.%d.%d", (s%60)/250, s%60+2) // IPs reused by later sessions
		ctr := fmt.Sprintf("%012x%052x", s+1, 0)
		cred := "px-" + sess
		t := start.Add(time.Duration(s/agents) * 3 * time.Hour).Add(time.Duration(s%agents) * time.Second)
		add(evidence.Event{Time: t, Source: evidence.SourceLedger, Kind: evidence.KindSessionStart, Agent: agent, Session: sess,
			SrcIP: ip, Container: ctr[:12], Credential: []string{cred}, ToolsAllowed: []string{"bash", "read_file", "write_file"},
			EgressAllowlist: hosts, Objective: "make the tests in /work/app" + sess + " pass", AttributedVia: "record"})
		for k := 0; len(evs) < (s+1)*perSession; k++ {
			t = t.Add(time.Duration(500+rng.Intn(3000)) * time.Millisecond)
			call := fmt.Sprintf("c-%d-%d", s, k)
			cmd := cmds[rng.Intn(len(cmds))]
			switch rng.Intn(200) {
			case 0:
				cmd = "cat /home/agent/.netrc"
			case 1:
				cmd = "nohup python3 watcher.py &"
			case 2:
				cmd = "curl -s http://169.254.169.254/latest/meta-data/"
			}
			led := func(kind string, ev evidence.Event) {
				ev.Time, ev.Source, ev.Kind, ev.Agent, ev.Session, ev.CallID, ev.AttributedVia = t, evidence.SourceLedger, kind, agent, sess, call, "record"
				add(ev)
			}
			led(evidence.KindToolCall, evidence.Event{Tool: "bash", Cmdline: cmd})
			decision := evidence.DecisionAllow
			if rng.Intn(50) == 0 {
				decision = evidence.DecisionDeny
			}
			led(evidence.KindPolicyDecision, evidence.Event{Decision: decision, Policy: "bash.default"})
			led(evidence.KindToolResult, evidence.Event{Status: "ok"})
			add(evidence.Event{Time: t.Add(20 * time.Millisecond), Source: evidence.SourceSensor, Format: "tetragon",
				Kind: evidence.KindProcExec, Container: ctr, Cmdline: "/bin/bash -lc " + cmd, Pid: 1000 + k})
			if rng.Intn(3) == 0 {
				host, dec := hosts[rng.Intn(len(hosts))], evidence.DecisionAllow
				if rng.Intn(20) == 0 {
					host, dec = fmt.Sprintf("h%d.example.com", rng.Intn(30)), evidence.DecisionDeny
				}
				add(evidence.Event{Time: t.Add(40 * time.Millisecond), Source: evidence.SourceSensor, Format: "tetragon",
					Kind: evidence.KindNetConnect, Container: ctr, DstIP: "10.96.40.12", DstPort: 3128})
				add(evidence.Event{Time: t.Add(300 * time.Millisecond), Source: evidence.SourceProxy, Format: "squid",
					Kind: evidence.KindNetRequest, SrcIP: ip, User: cred, DstHost: host, DstPort: 443, Method: "CONNECT",
					URL: host + ":443", Decision: dec})
			}
			if rng.Intn(10) == 0 {
				led(evidence.KindFileWrite, evidence.Event{Path: "/work/app" + sess + "/x.py", BytesOut: 1000})
			}
		}
		add(evidence.Event{Time: t.Add(time.Minute), Source: evidence.SourceLedger, Kind: evidence.KindSessionEnd,
			Agent: agent, Session: sess, Status: "completed", AttributedVia: "record"})
	}
	return evs
}

// BenchmarkDetect runs attribution and every built-in rule over 200,000
// synthetic events in memory (CORDON_BENCH_EVENTS=1000000 for a million):
//
//	go test ./detect -run '^$' -bench 'Detect$' -benchtime 3x
func BenchmarkDetect(b *testing.B) {
	n := 200_000
	if v, err := strconv.Atoi(os.Getenv("CORDON_BENCH_EVENTS")); err == nil && v > 0 {
		n = v
	}
	base := synthetic(n)
	rules, err := detect.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		evs := slices.Clone(base)
		attribution.AttributeAll(evs)
		eng := detect.Engine{Rules: rules}
		fs, err := eng.Run(context.Background(), detect.NewMemSource(evs))
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.ReportMetric(float64(len(fs)), "findings")
		}
	}
	b.ReportMetric(float64(len(base))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkRuleCost times each rule alone over the same events, already
// attributed, to see which ones the total is made of.
func BenchmarkRuleCost(b *testing.B) {
	evs := synthetic(200_000)
	attribution.AttributeAll(evs)
	src := detect.NewMemSource(evs)
	rules, err := detect.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range rules {
		b.Run(r.ID, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				eng := detect.Engine{Rules: []detect.Rule{r}}
				if _, err := eng.Run(context.Background(), src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEpisodes merges matches as many as the detectors give on the
// 1M-event bench incident (7,315: 40 agents, 8 detectors, most of them
// intent-mismatch a few minutes apart) into episodes.
func BenchmarkEpisodes(b *testing.B) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dets := []string{"intent-mismatch", "plan-divergence", "boundary-probing", "denial-adaptation",
		"destination-expansion", "credential-access", "persistence", "action-rate"}
	var ms []detect.Finding
	for i := range 7315 {
		det := dets[0]
		if i%25 == 0 {
			det = dets[1+i%7]
		}
		at := t0.Add(time.Duration(i/40) * 4 * time.Minute)
		ids := make([]string, 4)
		for j := range ids {
			ids[j] = strconv.Itoa(i*4 + j)
		}
		ms = append(ms, detect.Finding{Detector: det, Agent: fmt.Sprintf("agent-%02d", i%40), Severity: "medium",
			Start: at, End: at.Add(time.Minute), Events: ids, Values: ids[:1], Matches: 1, Explanation: "x"})
	}
	gap := func(string) time.Duration { return 15 * time.Minute }
	b.ResetTimer()
	for range b.N {
		out := detect.Episodes(ms, gap)
		if len(out) == 0 {
			b.Fatal("no episodes")
		}
	}
}

// BenchmarkPassMemory is what a Pass that learns its sessions as they come
// (a watcher's) keeps: the heap it holds after n synthetic events, per
// event, the events themselves not counted (the pass copies what it keeps):
//
//	go test ./detect -run '^$' -bench 'PassMemory' -benchtime 1x
func BenchmarkPassMemory(b *testing.B) {
	n := 200_000
	if v, err := strconv.Atoi(os.Getenv("CORDON_BENCH_EVENTS")); err == nil && v > 0 {
		n = v
	}
	evs := synthetic(n)
	slices.SortStableFunc(evs, func(x, y evidence.Event) int {
		switch {
		case detect.Before(&x, &y):
			return -1
		case detect.Before(&y, &x):
			return 1
		}
		return 0
	})
	rules, err := detect.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&before)
		eng := detect.Engine{Rules: rules, Attribute: true}
		p, err := eng.Start(context.Background(), detect.NewMemSource(nil))
		if err != nil {
			b.Fatal(err)
		}
		for j := range evs {
			if err := p.Add(&evs[j]); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		writeHeapProfile(b)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "heap-B/event")
		b.ReportMetric(float64(len(p.Findings())), "findings")
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
