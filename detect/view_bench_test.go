package detect_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// BenchmarkViewRefresh is what a watcher's verdicts pay for each view of
// a pass that holds the synthetic incident's 200,000 events: a step of
// 100 more events, then the answer made again, as Result made it (every
// set copied and finished: "result") and as View makes it from the last
// ("view"). "synthetic": the steps are the incident's own next events
// (several agents each time); "one-agent": tool calls of one agent that
// already made 60,000, as authz's load50 sends.
//
//	go test ./detect -run '^$' -bench ViewRefresh -benchtime 50x -benchmem
func BenchmarkViewRefresh(b *testing.B) {
	rules, err := detect.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	all := synthetic(205000)
	attribution.AttributeAll(all)
	slices.SortStableFunc(all, func(a, b evidence.Event) int {
		switch {
		case detect.Before(&a, &b):
			return -1
		case detect.Before(&b, &a):
			return 1
		}
		return 0
	})
	for _, load := range []string{"synthetic", "one-agent"} {
		for _, how := range []string{"result", "view"} {
			b.Run(load+"/"+how, func(b *testing.B) {
				base, more := all[:200000], all[200000:]
				if load == "one-agent" {
					base, more = all[:200000], toolCalls(all[199999].Time, 0, 60000+100*b.N)
					base = append(base[:len(base):len(base)], more[:60000]...)
					more = more[60000:]
				}
				eng := detect.Engine{Rules: rules}
				p, err := eng.Start(context.Background(), detect.NewMemSource(base))
				if err != nil {
					b.Fatal(err)
				}
				for i := range base {
					if err := p.Add(&base[i]); err != nil {
						b.Fatal(err)
					}
				}
				p.View()
				b.ResetTimer()
				for i := range b.N {
					b.StopTimer()
					for j := i * 100; j < (i+1)*100 && j < len(more); j++ {
						if err := p.Add(&more[j]); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
					if how == "result" {
						p.Result()
					} else {
						p.View()
					}
				}
			})
		}
	}
}

// toolCalls are n tool calls of one agent, one a millisecond after at.
func toolCalls(at time.Time, from, n int) []evidence.Event {
	out := make([]evidence.Event, 0, n)
	for i := from; i < from+n; i++ {
		out = append(out, evidence.Event{ID: fmt.Sprintf("load-%08d", i), Time: at.Add(time.Duration(i+1) * time.Millisecond),
			Source: evidence.SourceLedger, Format: "cordon-ledger", Kind: evidence.KindToolCall, Agent: "agent-load",
			Session: "s-load", Tool: "bash", CallID: fmt.Sprintf("c-load-%d", i), Message: "tool_call bash"})
	}
	return out
}
