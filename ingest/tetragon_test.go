package ingest

import (
	"path/filepath"
	"testing"
)

func TestTetragonGolden(t *testing.T) {
	for _, tc := range []struct {
		file            string
		events, rejects int
	}{
		{"testdata-events.jsonl", 3, 0},
		{"docs-process-execution-0-process_exec.json", 1, 0},
		{"docs-process-execution-1-process_exit.json", 1, 0},
		{"docs-filename-access-0-process_kprobe.json", 1, 0},
		{"docs-advanced-process-execution-0-process_kprobe.json", 1, 0},
		{"oreilly-process_exec.json", 1, 0},
		{"oreilly-process_exit.json", 1, 0},
		{"oreilly-process_kprobe.json", 1, 0},
		{"oreilly-merlin-agent-go-connect.json", 1, 0},
	} {
		name := "tetragon-" + tc.file[:len(tc.file)-len(filepath.Ext(tc.file))]
		t.Run(name, func(t *testing.T) {
			c := parseFile(t, NewTetragon(), sample("tetragon", tc.file))
			if len(c.events) != tc.events || len(c.rejects) != tc.rejects {
				t.Fatalf("got %d events, %d rejects (%v); want %d and %d", len(c.events), len(c.rejects), c.rejects, tc.events, tc.rejects)
			}
			checkGolden(t, name, c)
		})
	}
}
