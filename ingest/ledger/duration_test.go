package ledger_test

import (
	"testing"

	"github.com/cordon-ir/cordon/ingest/ledger"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// A tool result's duration_ms, when the gateway writes it, is the event's.
func TestToolResultDuration(t *testing.T) {
	rec := `{"v":1,"ts":"2026-07-21T10:04:11.270Z","type":"tool_result","run":"r","agent":"agent-7","session":"s-19","call_id":"c-12","status":"ok","duration_ms":1250}`
	evs, err := ledger.New().Parse(parse.Record{Data: []byte(rec)})
	if err != nil || len(evs) != 1 || evs[0].DurationMS != 1250 {
		t.Fatalf("%+v %v", evs, err)
	}
}
