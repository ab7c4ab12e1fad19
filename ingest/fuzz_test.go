package ingest

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// fuzzParser seeds a fuzz target with every record of the sample files and
// checks that parsing arbitrary bytes never panics and always yields events
// with a time, or an error.
func fuzzParser(f *testing.F, p Parser, samples ...string) {
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
		evs, err := p.Parse(Record{Data: data, Line: 1})
		if err != nil {
			return
		}
		for _, ev := range evs {
			if normalize(&ev) != nil {
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
