//go:build unix

package incident_test

import (
	"context"
	"slices"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
)

// BenchmarkScan: the detectors' one pass with the capability sets, on an
// incident kept by cordon bench --keep (CORDON_BENCH_INCIDENT=DIR/incident),
// without and with the search for keys in tool calls and outputs. The
// machine is shared: CPU time per run is the figure to compare.
func BenchmarkScan(b *testing.B) {
	dir := os.Getenv("CORDON_BENCH_INCIDENT")
	if dir == "" {
		b.Skip("set CORDON_BENCH_INCIDENT to an incident kept by cordon bench --keep")
	}
	ws, err := incident.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	for _, keys := range []bool{false, true} {
		name := "plain"
		if keys {
			name = "keys"
		}
		b.Run(name, func(b *testing.B) {
			opt := incident.FindingsOptions{}
			if keys {
				opt.Secrets, _ = ws.Redactor()
			}
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				began := processCPU()
				r, err := incident.Scan(context.Background(), ws.EvidenceStore(), opt)
				cpu += processCPU() - began
				if err != nil || len(r.Findings) == 0 {
					b.Fatalf("scan: %d findings, %v", len(r.Findings), err)
				}
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// processCPU is the CPU time the process used so far, every thread.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAssessment: the one verdict on a kept bench incident
// (CORDON_BENCH_INCIDENT=DIR/incident), its top-ranked agent killed at the
// midpoint of its events. The detectors' pass runs once (and is reported
// as scan-cpu-s, of which a CPU profile says the capability part); each
// iteration then produces the Assessment from the kept state: the case
// (subject, sessions, kill time) and the rule over every capability.
func BenchmarkAssessment(b *testing.B) {
	ws := benchIncident(b)
	ctx := context.Background()
	var err error
	began := processCPU()
	ranks, err := ws.AgentRanking(ctx)
	if err != nil || len(ranks) == 0 {
		b.Fatalf("ranking: %v", err)
	}
	b.ReportMetric((processCPU() - began).Seconds(), "scan-cpu-s")
	top := ranks[0].Agent
	cs, err := incident.LoadCase(ctx, ws.EvidenceStore(), []string{top}, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	kill := cs.First.Add(cs.Last.Sub(cs.First) / 2)
	b.ResetTimer()
	var a capability.Assessment
	for i := 0; i < b.N; i++ {
		if a, err = ws.Assess(ctx, []string{top}, kill, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(a.Capabilities)), "capabilities")
	b.Logf("%s killed at %s: %s", top, kill.Format(time.RFC3339), a.Headline())
}

// BenchmarkCapabilityPass: what the capability part costs of the
// detectors' pass, on a kept bench incident: the whole pass (the built-in
// rules, the capability sets and the sources' coverage) against a pass
// with no rules, which reads only the sessions and what the capability
// scan reads, and builds the sets. CPU seconds per pass, GC included.
func BenchmarkCapabilityPass(b *testing.B) {
	ws := benchIncident(b)
	secrets, _ := ws.Redactor()
	for _, tc := range []struct {
		name  string
		rules []detect.Rule // nil: the built-in ones
	}{{"whole", nil}, {"capabilities", []detect.Rule{}}} {
		b.Run(tc.name, func(b *testing.B) {
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				runtime.GC()
				began := processCPU()
				r, err := incident.Scan(context.Background(), ws.EvidenceStore(), incident.FindingsOptions{Rules: tc.rules, Secrets: secrets})
				cpu += processCPU() - began
				if err != nil || len(r.Capabilities.Agents()) == 0 {
					b.Fatalf("scan: %v", err)
				}
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// benchIncident opens the kept bench incident CORDON_BENCH_INCIDENT names
// (cordon bench --keep), read-only, closed when the benchmark ends.
func benchIncident(b *testing.B) *incident.Workspace {
	b.Helper()
	dir := os.Getenv("CORDON_BENCH_INCIDENT")
	if dir == "" {
		b.Skip("set CORDON_BENCH_INCIDENT to an incident kept by cordon bench --keep")
	}
	ws, err := incident.Open(dir, incident.AllowShared(true))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws
}

// benchEngine is the bench incident (benchIncident), the engine of the
// built-in rules with its redaction key, and its stored events as the
// engine reads them.
func benchEngine(b *testing.B) (*incident.Workspace, detect.Engine, evidence.StoreSource) {
	b.Helper()
	ws := benchIncident(b)
	secrets, _ := ws.Redactor()
	rules, err := detect.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	return ws, detect.Engine{Rules: rules, Secrets: secrets}, evidence.StoreSource{Store: ws.EvidenceStore()}
}

// BenchmarkLiveAnswer: what a following ingest pays per round for its
// answer, once its pass holds the bench incident: a round of 1,000
// events added and its answer (round, round-view: up to 20 of them in
// all), then, with
// nothing more added, Pass.Findings (the rules' findings) and Pass.Result
// (the findings, the capability sets finished on a copy, the coverage,
// the ranking).
func BenchmarkLiveAnswer(b *testing.B) {
	ws, eng, src := benchEngine(b)
	p, err := eng.Start(context.Background(), src)
	if err != nil {
		b.Fatal(err)
	}
	// the last rounds' events are held back, to be added a round at a
	// time by "round"
	const round, rounds = 1000, 20
	held := int(ws.EvidenceStore().Counts().Total) - round*rounds
	var rest []evidence.Event
	err = p.ReplayVia(context.Background(), src, func(p *detect.Pass, ev *evidence.Event) error {
		if held--; held < 0 {
			rest = append(rest, *ev)
			return nil
		}
		return p.Add(ev)
	})
	if err != nil {
		b.Fatal(err)
	}
	// a round of 1,000 appended events, then the answer, as a following
	// ingest's round; at most the rounds held back, half of them asking
	// Result (every capability set copied), half View (the sets of the
	// agents whose capabilities changed)
	aRound := func(answer func() detect.Result) func(b *testing.B) {
		return func(b *testing.B) {
			defer profileRegion(b)()
			for i := 0; i < b.N && len(rest) >= round; i++ {
				for j := range rest[:round] {
					if err := p.Add(&rest[j]); err != nil {
						b.Fatal(err)
					}
				}
				rest = rest[round:]
				if r := answer(); len(r.Findings) == 0 {
					b.Fatal("no findings")
				}
			}
		}
	}
	b.Run("round", aRound(p.Result))
	b.Run("round-view", aRound(func() detect.Result { return p.View().Result }))
	b.Run("kept", func(b *testing.B) {
		// the round's answer encoded as the follow keeps it after each
		// round (engine/result.gob, less writing the file)
		r := p.View().Result
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if enc, err := incident.EncodeKept(r); err != nil || len(enc) == 0 {
				b.Fatal(err)
			}
		}
	})
	b.Run("findings", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if len(p.Findings()) == 0 {
				b.Fatal("no findings")
			}
		}
	})
	b.Run("result", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if r := p.Result(); len(r.Findings) == 0 {
				b.Fatal("no findings")
			}
		}
	})
}

// BenchmarkPassEquivalence is a bench check, not a timing: on the bench
// incident, a pass asked for its findings every 50,000 events, as a
// following ingest asks after its rounds, ends with the one-shot run's
// findings (ids, severities, evidence ids, counts).
func BenchmarkPassEquivalence(b *testing.B) {
	_, eng, src := benchEngine(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		want, err := eng.Scan(ctx, src)
		if err != nil {
			b.Fatal(err)
		}
		p, err := eng.Start(ctx, src)
		if err != nil {
			b.Fatal(err)
		}
		asked := 0
		buf := new(evidence.Event)
		err = src.Each(ctx, evidence.All(), func(ev evidence.Event) error {
			*buf = ev
			if err := p.Add(buf); err != nil {
				return err
			}
			if p.Events()%50000 == 0 {
				asked++
				p.Findings()
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		got := p.Done()
		if len(got.Findings) != len(want.Findings) || asked == 0 {
			b.Fatalf("%d findings asked along %d times, %d in one shot", len(got.Findings), asked, len(want.Findings))
		}
		for j := range got.Findings {
			g, w := got.Findings[j], want.Findings[j]
			if g.ID != w.ID || g.Severity != w.Severity || g.Matches != w.Matches || !slices.Equal(g.Events, w.Events) {
				b.Fatalf("finding %d: %s %s %d events, one shot %s %s %d events", j, g.ID, g.Severity, len(g.Events), w.ID, w.Severity, len(w.Events))
			}
		}
		b.ReportMetric(float64(len(got.Findings)), "findings")
		b.ReportMetric(float64(asked), "asked")
	}
}

// profileRegion writes a CPU profile of the measured region alone to
// $CORDON_BENCH_CPUPROFILE, when set (-test.cpuprofile would take in the
// set-up, a replay, which costs more than the region here); the returned
// func stops it.
func profileRegion(b *testing.B) func() {
	path := os.Getenv("CORDON_BENCH_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
