package report_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/report"
)

// farLedger is a ledger of n records a second apart from 10:00 and one
// record dated 9999-12-31T23:59:59Z.
func farLedger(t *testing.T, n int) string {
	var b strings.Builder
	b.WriteString(`{"v":1,"ts":"2026-07-21T10:00:00Z","type":"session_start","run":"r-1","agent":"agent-7","session":"s-19","model":"m","objective":"o","sandbox":{"id":"sb-42","container_id":"3f2a9c1d7e88","ip":"10.0.3.7","host":"h"},"credentials":[],"tools_allowed":["bash"],"egress_allowlist":[]}` + "\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, `{"v":1,"ts":"2026-07-21T10:%02d:%02dZ","type":"tool_call","run":"r-1","agent":"agent-7","session":"s-19","call_id":"c-%d","tool":"bash","args":{"cmd":"ls"}}`+"\n", i/60, i%60, i)
	}
	b.WriteString(`{"v":1,"ts":"9999-12-31T23:59:59Z","type":"tool_call","run":"r-1","agent":"agent-7","session":"s-19","call_id":"c-far","tool":"bash","args":{"cmd":"ls"}}` + "\n")
	return incidenttest.WriteFile(t, "ledger.jsonl", []byte(b.String()))
}

// TestFindingsReportAndChecksWithARecordDated9999: with one normal event
// and one dated 9999-12-31, `cordon findings` took 15 s and 4.9 GB, the
// report 5.3 GB and the checks 5.0 GB.
func TestFindingsReportAndChecksWithARecordDated9999(t *testing.T) {
	ws := incidenttest.New(t, farLedger(t, 1))
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := ws.CachedFindings(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := report.Build(ctx, ws); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Check(ctx, journal.Actor{Name: "oncall", Via: journal.ViaCLI}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	const limit = 64 << 20
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("findings, report and checks allocated %d KB", n>>10)
	if n > limit {
		t.Fatalf("findings, report and checks over two events allocated %d MB, want under %d MB", n>>20, limit>>20)
	}
}

// TestReportNamesEventsOutsideTheMainSpan: the report's time span is the
// main span, and a line names the record outside it and how to find it.
func TestReportNamesEventsOutsideTheMainSpan(t *testing.T) {
	ws := incidenttest.New(t, farLedger(t, 300))
	r, err := report.Build(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**Time span:** 2026-07-21 10:00:00Z – 2026-07-21 10:04:59Z",
		"**Outside the time span:** 1 event outside the main span (latest 9999-12-31): `time:>\"2026-07-21T10:04:59Z\"`",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, md.String()[:min(md.Len(), 600)])
		}
	}
}
