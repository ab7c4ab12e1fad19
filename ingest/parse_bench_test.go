package ingest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// countSink counts what a stream yields.
type countSink struct{ events, rejects, routine, merged int }

func (s *countSink) Event(ev evidence.Event) error {
	s.events++
	if slices.Contains(ev.Tags, parse.TagRoutine) {
		s.routine++
	}
	return nil
}
func (s *countSink) Reject(parse.Reject) error { s.rejects++; return nil }
func (s *countSink) Merged(n int)              { s.merged += n }

// BenchmarkParse times reading, sniffing, parsing and normalizing each
// format's records from the sample incidents (no index): what a parser
// costs per record and per byte, docs/performance.md "Ingest speed per
// format". Run with:
//
//	go test ./ingest -run '^$' -bench Parse -benchtime 20x
func BenchmarkParse(b *testing.B) {
	root := filepath.Join("..", "sample-incidents")
	for _, tc := range []struct{ format, glob string }{
		{"cloudtrail", "cloud-key-after-kill/audit/cloudtrail/*.json"},
		{"k8s-audit", "cloud-key-after-kill/audit/k8s-audit.jsonl"},
		{"squid", "*/proxy/access.log"},
		{"falco", "*/sensor/falco.jsonl"},
		{"tetragon", "*/sensor/tetragon.jsonl"},
		{"cordon-ledger", "*/ledger.jsonl"},
	} {
		paths, err := filepath.Glob(filepath.Join(root, tc.glob))
		if err != nil || len(paths) == 0 {
			b.Fatalf("%s: no samples (%v)", tc.glob, err)
		}
		var files [][]byte
		size := 0
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, data)
			size += len(data)
		}
		p, err := ingest.ByFormat(tc.format)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.format, func(b *testing.B) {
			b.SetBytes(int64(size))
			var last countSink
			for i := 0; i < b.N; i++ {
				s := &countSink{}
				for _, data := range files {
					if _, err := ingest.Stream(bytes.NewReader(data), "bench", p, ingest.Position{}, s, nil); err != nil {
						b.Fatal(err)
					}
				}
				last = *s
			}
			if last.rejects > 0 || last.events == 0 {
				b.Fatalf("%d events, %d rejects", last.events, last.rejects)
			}
			b.ReportMetric(float64(last.events), "events/op")
			b.ReportMetric(float64(last.routine), "routine/op")
			b.ReportMetric(float64(last.merged), "merged/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(last.events+last.merged), "ns/record")
		})
	}
}
