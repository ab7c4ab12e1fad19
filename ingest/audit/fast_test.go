package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/ingest/parse"
)

// The one-pass reading of a Records file gives what reading it record by
// record gives, raw bytes included, on every Records file there is.
func TestRecordsFastPathMatchesSlow(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "sample-incidents", "*", "audit", "cloudtrail", "*.json"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "formats", "cloudtrail", "*.json"))
	files = append(files, more...)
	if len(files) < 20 {
		t.Fatalf("%d Records files", len(files))
	}
	p := cloudTrail{}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// the docs' files hold several objects, one per record of the reader
		dec := json.NewDecoder(bytes.NewReader(data))
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				t.Fatal(err)
			}
			if !recordsStart.Match(raw) {
				continue
			}
			n++
			if _, ok := trailRecordsFast(raw); !ok {
				t.Errorf("%s: the fast path gave up", f)
				continue
			}
			fast, err1 := p.Parse(parse.Record{Data: raw})
			slow, err2 := p.parseSlow(parse.Record{Data: raw})
			a, _ := json.Marshal(fast)
			b, _ := json.Marshal(slow)
			if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
				t.Errorf("%s: fast and slow differ (%v, %v)\n%.300s\n%.300s", f, err1, err2, a, b)
			}
		}
	}
	if n < 25 {
		t.Errorf("only %d Records objects compared", n)
	}
	// a string holding brackets and an escaped quote does not fool the split
	tricky := []byte(`{"Records":[{"eventVersion":"1.08","eventTime":"2026-10-14T10:00:00Z","eventSource":"s3.amazonaws.com","eventName":"PutObject","userAgent":"a \"[{\" b}]"},{"eventVersion":"1.08","eventTime":"2026-10-14T10:00:01Z","eventSource":"s3.amazonaws.com","eventName":"PutObject","requestParameters":{"k":[1,{"x":"]"}]}}]}`)
	raws := splitRecords(tricky)
	if len(raws) != 2 || !json.Valid(raws[0]) || !json.Valid(raws[1]) {
		t.Errorf("split %q", raws)
	}
}
