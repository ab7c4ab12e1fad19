package parsetest

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/cordon-ir/cordon/ingest/parse"
)

// Fuzz seeds a parser's fuzz target with every sample file and every line
// of them, and checks that parsing arbitrary bytes never panics and always yields events
// with a time, or an error.
func Fuzz(f *testing.F, p parse.Parser, samples ...string) {
	for _, s := range samples {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff(data)
		evs, err := p.Parse(parse.Record{Data: data, Line: 1})
		if err != nil {
			return
		}
		for _, ev := range evs {
			if parse.Normalize(&ev) != nil {
				continue // the driver rejects it
			}
			if _, err := json.Marshal(ev); err != nil {
				t.Errorf("event from %q does not serialize: %v", data, err)
			}
			if ev.Time.IsZero() {
				t.Errorf("event without time from %q", data)
			}
			if ev.Kind == "" {
				t.Errorf("event without kind from %q", data)
			}
		}
	})
}
