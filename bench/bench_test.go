package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
)

func TestRunSmall(t *testing.T) {
	res, err := Run(context.Background(), Config{Events: 2000, Queries: 3, Dir: t.TempDir(), Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != int64(res.Records-res.Rejects) || res.Events < 1900 {
		t.Errorf("%d records, %d rejected, %d events indexed", res.Records, res.Rejects, res.Events)
	}
	if res.EventsPerSec <= 0 || res.IndexBytes <= 0 || res.PeakRSS <= 0 || res.PeakRSSRun < res.PeakRSS {
		t.Errorf("missing figures: %+v", res)
	}
	if len(res.Queries) != 12 {
		t.Fatalf("%d query kinds timed, want 6 queries, the console's open, again, and 4 keys", len(res.Queries))
	}
	if res.FindingsSeconds <= 0 || res.Findings == 0 {
		t.Errorf("detectors: %d findings in %.3f s", res.Findings, res.FindingsSeconds)
	}
	if res.DetectSeconds <= 0 || res.DetectCPU <= 0 || res.DetectFindings != res.Findings {
		t.Errorf("detectors at ingest: %d findings in %.3f s (%.3f s CPU), the replay %d", res.DetectFindings, res.DetectSeconds, res.DetectCPU, res.Findings)
	}
	for _, q := range res.Queries {
		rare := q.Name == "agent+decision+1h" // may match nothing in 2,000 events
		if q.Hits == 0 && !rare || q.MedianMs <= 0 || q.P95Ms < q.MedianMs {
			t.Errorf("query %s: %+v", q.Name, q)
		}
	}
	// Every generated format was sniffed and parsed as itself.
	ws, err := incident.Open(filepath.Join(res.Dir, "incident"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	formats := ws.Counts().Fields["format"]
	for _, f := range []string{"cordon-ledger", "squid", "falco", "tetragon"} {
		if formats[f] < 50 {
			t.Errorf("format %s: %d events (%v)", f, formats[f], formats)
		}
	}
	var b bytes.Buffer
	if err := WriteTable(&b, res); err != nil || !bytes.Contains(b.Bytes(), []byte("timeline page")) || !bytes.Contains(b.Bytes(), []byte("key j (frame)")) {
		t.Errorf("table: %v\n%s", err, b.String())
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	sum := func() [sha256.Size]byte {
		g, err := Generate(t.TempDir(), 3000, 0)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for _, f := range g.Files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			h.Write(b)
		}
		var out [sha256.Size]byte
		copy(out[:], h.Sum(nil))
		return out
	}
	if sum() != sum() {
		t.Fatal("two runs generated different bytes")
	}
}

// BenchmarkRun is the harness at a size go test can afford; cordon bench
// --events 1000000 is the real measurement (docs/performance.md).
func BenchmarkRun(b *testing.B) {
	for i := 0; i < b.N; i++ {
		res, err := Run(context.Background(), Config{Events: 20000, Queries: 5, Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(res.EventsPerSec, "events/s")
		for _, q := range res.Queries {
			if q.Name == "timeline page" {
				b.ReportMetric(q.MedianMs, "page-ms")
			}
		}
	}
}

// The records spread over the span asked for: ten times the span, ten
// times as far apart, and the default span when none is asked.
func TestGenerateSpreadsOverTheSpan(t *testing.T) {
	spread := func(span time.Duration) time.Duration {
		g, err := Generate(t.TempDir(), 3000, span)
		if err != nil {
			t.Fatal(err)
		}
		return g.Last.Sub(g.First)
	}
	short, long, none := spread(time.Hour), spread(10*time.Hour), spread(0)
	if short > time.Hour || short < 50*time.Minute {
		t.Errorf("3000 records over an hour spread over %s", short)
	}
	if r := float64(long) / float64(short); r < 9.5 || r > 10.5 {
		t.Errorf("ten times the span spread the records %.2f times as far (%s, %s)", r, short, long)
	}
	if none != spread(DefaultSpan) {
		t.Errorf("no span spread them over %s, the default span over %s", none, spread(DefaultSpan))
	}
}
