package sigma

import (
	"context"
	"os"
	"runtime"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/attribution/attributiontest"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/platform"
)

// BenchmarkSigmaRulesInPass: the SigmaHQ rules committed here in the
// engine's pass over a million events (CORDON_BENCH_EVENTS, default
// 1,000,000) made from every sample incident's, attributed, again and
// again with new ids and later times: the matcher's cost with no index
// to read. A pass with no rules and one with the built-in rules are the
// baselines; the difference per event is what the Sigma rules cost live,
// where a following ingest hands the pass its events one at a time.
func BenchmarkSigmaRulesInPass(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("CORDON_BENCH_EVENTS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	var tmpl []evidence.Event
	for _, name := range []string{"busy-benign", "cloud-key-after-kill", "created-workload", "credential-theft",
		"egress-probe-exfil", "persistence-after-kill", "shared-volume-token"} {
		evs := attributiontest.Sample(b, name)
		attribution.AttributeAll(evs)
		tmpl = append(tmpl, evs...)
	}
	// one sample after the other on one clock: each template event keeps
	// its place within its sample, and the samples follow one another
	sort.SliceStable(tmpl, func(i, j int) bool { return detect.Before(&tmpl[i], &tmpl[j]) })
	set, err := Load(nil, "testdata/sigmahq")
	if err != nil {
		b.Fatal(err)
	}
	builtin, err := detect.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	both := append(append([]detect.Rule{}, builtin...), set.Rules...)
	for _, tc := range []struct {
		name  string
		rules []detect.Rule
	}{{"none", nil}, {"sigmahq", set.Rules}, {"builtin", builtin}, {"builtin+sigmahq", both}} {
		b.Run(tc.name, func(b *testing.B) {
			var cpu time.Duration
			found := 0
			for i := 0; i < b.N; i++ {
				runtime.GC()
				began := platform.ProcessCPU()
				found = replay(b, tc.rules, tmpl, n)
				cpu += platform.ProcessCPU() - began
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/event")
			b.ReportMetric(float64(found), "findings")
		})
	}
}

// replay adds n events, the templates over and over, to a pass of rules.
func replay(b *testing.B, rules []detect.Rule, tmpl []evidence.Event, n int) int {
	p, err := (&detect.Engine{Rules: rules}).Start(context.Background(), detect.NewMemSource(nil))
	if err != nil {
		b.Fatal(err)
	}
	first, last := tmpl[0].Time, tmpl[len(tmpl)-1].Time
	span := last.Sub(first) + time.Second
	var ev evidence.Event
	for i := 0; i < n; i++ {
		k := i / len(tmpl)
		ev = tmpl[i%len(tmpl)]
		ev.ID = strconv.Itoa(k) + "-" + ev.ID
		ev.Time = ev.Time.Add(time.Duration(k) * span)
		if err := p.Add(&ev); err != nil {
			b.Fatal(err)
		}
	}
	return len(p.Done().Findings)
}
