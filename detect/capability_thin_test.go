package detect_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// busyDay is an hour of one agent hammering: a tool call every 150 ms
// (every 89th left with no result, every 97th answered five minutes
// later, every 13th refused), each followed by a request through the
// proxy on its credential (every 5th refused, then every one for the
// last twelve minutes) to one of a
// few hosts, and a process now and then: tens of thousands of uses of a
// handful of capabilities, and enough of both kinds of timed records for
// the clock-skew estimate to settle.
func busyDay(n int) []evidence.Event {
	t0 := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	evs := []evidence.Event{{ID: "s", Time: t0, Source: evidence.SourceLedger, Kind: evidence.KindSessionStart, Agent: "a",
		Session: "s-1", SrcIP: "10.0.0.5", Credential: []string{"px-1"}}}
	for i := range n {
		at := t0.Add(time.Second + time.Duration(i)*150*time.Millisecond)
		call := fmt.Sprintf("c%d", i)
		evs = append(evs, evidence.Event{ID: "l" + call, Time: at, Source: evidence.SourceLedger, Kind: evidence.KindToolCall,
			Agent: "a", Session: "s-1", CallID: call, Tool: "bash", Cmdline: fmt.Sprintf("curl https://api%d.example.com/x", i%7)})
		if i%89 != 0 {
			res := evidence.Event{ID: "r" + call, Time: at.Add(40 * time.Millisecond), Source: evidence.SourceLedger, Kind: evidence.KindToolResult,
				Agent: "a", Session: "s-1", CallID: call, Status: "ok", Decision: evidence.DecisionAllow}
			if i%97 == 0 {
				res.Time = at.Add(5 * time.Minute) // a long call: its use ends then
			}
			if i%13 == 0 {
				res.Decision, res.Status = evidence.DecisionDeny, "denied"
			}
			evs = append(evs, res)
		}
		px := evidence.Event{ID: "p" + call, Time: at.Add(80 * time.Millisecond), Source: evidence.SourceProxy, Format: "squid", Kind: evidence.KindNetRequest,
			SrcIP: "10.0.0.5", User: "px-1", DstHost: fmt.Sprintf("api%d.example.com", i%7), Method: "POST", BytesOut: int64(100 + i%50),
			Decision: evidence.DecisionAllow, Status: "200", DurationMS: int64(i % 900)}
		if i%5 == 0 || i > n-4800 {
			px.Decision, px.Status = evidence.DecisionDeny, "407"
		}
		evs = append(evs, px)
		if i%50 == 0 {
			evs = append(evs, evidence.Event{ID: "x" + call, Time: at.Add(90 * time.Millisecond), Source: evidence.SourceSensor, Format: "tetragon",
				Kind: evidence.KindProcExec, Agent: "a", Container: "0123456789abcdef", Pid: 4000 + i%3, ExecID: fmt.Sprintf("e%d", i%3), Cmdline: "/usr/bin/curl"})
		}
	}
	slices.SortFunc(evs, func(a, b evidence.Event) int { return cmp.Or(a.Time.Compare(b.Time), strings.Compare(a.ID, b.ID)) })
	attribution.AttributeAll(evs)
	return evs
}

// A pass thins the uses of a capability it holds many of, and the capability
// sets it gives are, to the byte, those of a pass that kept every use: the
// same uses kept, the same counts per minute, the same ends (the refusals
// at the end end the credential), asked at every step of a following
// console's views or at the end. Before thinning, the pass held every use
// of the hour.
func TestThinnedUsesGiveTheWholeAnswer(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	evs := busyDay(24000)
	detect.SweepEvery(t, 1024)
	run := func(views bool) (int, string) {
		p, _ := passOver(t, rules, evs[:1], evs, 0)
		held := detect.HeldUses(p, "a")
		if views {
			// a following console's views, shared uses and all
			p2, err := (&detect.Engine{Rules: rules}).Start(t.Context(), detect.NewMemSource(evs[:1]))
			if err != nil {
				t.Fatal(err)
			}
			for i := range evs {
				if err := p2.Add(&evs[i]); err != nil {
					t.Fatal(err)
				}
				if i%5000 == 0 {
					p2.View()
				}
			}
			return detect.HeldUses(p2, "a"), capsOf(t, p2.View().Result.Capabilities)
		}
		return held, capsOf(t, p.Done().Capabilities)
	}
	detect.ThinAt(t, 1<<30)
	wholeHeld, whole := run(false)
	detect.ThinAt(t, 128)
	thinHeld, thin := run(false)
	_, viewed := run(true)
	if wholeHeld < 48000 {
		t.Fatalf("kept every use, the pass holds %d: the day does not test thinning", wholeHeld)
	}
	if thinHeld > wholeHeld/4 {
		t.Errorf("thinned, the pass holds %d uses of %d", thinHeld, wholeHeld)
	}
	if thin != whole {
		t.Errorf("thinned, the capability sets differ from the whole:\n%s\nwant\n%s", thin, whole)
	}
	if viewed != whole {
		t.Errorf("thinned with views, the capability sets differ from the whole:\n%s\nwant\n%s", viewed, whole)
	}
	for _, want := range []string{`"how":"refused from then on"`, `"kind":"tool-call"`, `"minutes":[`} {
		if !strings.Contains(whole, want) {
			t.Errorf("the whole answer has no %s: the day does not test it", want)
		}
	}
}

func capsOf(t *testing.T, set *capability.Set) string {
	t.Helper()
	var out []byte
	for _, a := range set.Agents() {
		b, err := json.Marshal(set.For(a))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
		out = append(out, '\n')
	}
	return string(out)
}

// BenchmarkBusyAgentHeld: the heap a pass holds after busyDay's hours of
// one agent (CORDON_BENCH_CALLS tool calls, default 200,000: about three
// events each), its capabilities' uses thinned (thin) or not (whole).
//
//	go test ./detect -run '^$' -bench BusyAgentHeld -benchtime 1x
func BenchmarkBusyAgentHeld(b *testing.B) {
	n := 200000
	if v, err := strconv.Atoi(os.Getenv("CORDON_BENCH_CALLS")); err == nil && v > 0 {
		n = v
	}
	rules, err := detect.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	evs := busyDay(n)
	for _, mode := range []struct {
		name string
		at   int
	}{{"whole", 1 << 30}, {"thin", 128}} {
		b.Run(mode.name, func(b *testing.B) {
			detect.ThinAt(b, mode.at)
			for range b.N {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				p, err := (&detect.Engine{Rules: rules}).Start(b.Context(), detect.NewMemSource(evs[:1]))
				if err != nil {
					b.Fatal(err)
				}
				for i := range evs {
					if err := p.Add(&evs[i]); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "held-MB")
				b.ReportMetric(float64(detect.HeldUses(p, "a")), "uses-held")
				runtime.KeepAlive(p)
			}
		})
	}
}

// A capability used in a burst, and not again, is thinned once the burst
// is old, by a later sweep than the one that found it due: the sweep that
// found it due could drop nothing (every use was of the last minute), and
// nothing touches it after.
func TestThinnedWhenABurstIsOld(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	evs := []evidence.Event{{ID: "s", Time: t0, Source: evidence.SourceLedger, Kind: evidence.KindSessionStart, Agent: "a", Session: "s-1"}}
	for i := range 400 { // 400 sends in 20 s
		evs = append(evs, evidence.Event{ID: fmt.Sprintf("a%04d", i), Time: t0.Add(time.Second + time.Duration(i)*50*time.Millisecond),
			Source: evidence.SourceLedger, Kind: evidence.KindNetRequest, Agent: "a", Session: "s-1", DstHost: "burst.example.com",
			Method: "POST", BytesOut: 100, Decision: evidence.DecisionAllow})
	}
	for i := range 1200 { // then another agent, for ten minutes
		evs = append(evs, evidence.Event{ID: fmt.Sprintf("b%04d", i), Time: t0.Add(time.Minute + time.Duration(i)*500*time.Millisecond),
			Source: evidence.SourceLedger, Kind: evidence.KindNetRequest, Agent: "b", DstHost: "other.example.com",
			Method: "GET", BytesOut: 10, Decision: evidence.DecisionAllow})
	}
	detect.SweepEvery(t, 64)
	detect.ThinAt(t, 128)
	p, _ := passOver(t, rules, evs[:1], evs[1:], 0)
	if held := detect.HeldUses(p, "a"); held > 100 {
		t.Errorf("the burst's capability holds %d uses of 400 ten minutes after it", held)
	}
}
