package bench

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"
)

// Input files, one per format, as they would be collected from a fleet.
const (
	ledgerFile   = "ledger.jsonl"
	squidFile    = "proxy/access.log"
	falcoFile    = "sensor/falco.jsonl"
	tetragonFile = "sensor/tetragon.jsonl"
)

// Generated describes the raw evidence Generate wrote.
type Generated struct {
	Dir     string
	Files   []string
	Records int   // records written (events to expect, rejects included)
	Broken  int   // records deliberately cut short
	Bytes   int64 // total size of the files
	First   time.Time
	Last    time.Time
}

// rate is the relative event rate at fraction x of the incident: a quiet
// start, an hourly rhythm and a burst when the agents start escaping.
func rate(x float64) float64 {
	burst := (x - 0.55) / 0.08
	return 0.6 + 1.8*math.Exp(-burst*burst) + 0.3*(1+math.Sin(2*math.Pi*6*x))/2
}

// Generate writes n records in time order across the four formats into dir,
// spread over span (DefaultSpan when 0): 40% ledger, 35% Squid, 18%
// Tetragon, 7% Falco, with a session_start per agent and one ledger line
// in 20,000 cut short (a realistic reject). The same n and span always
// give the same bytes.
func Generate(dir string, n int, span time.Duration) (*Generated, error) {
	if span <= 0 {
		span = DefaultSpan
	}
	w := newWorld()
	g := &Generated{Dir: dir}
	names := []string{ledgerFile, squidFile, falcoFile, tetragonFile}
	out := map[string]*bufio.Writer{}
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, name := range names {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		f, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		out[name] = bufio.NewWriterSize(f, 1<<20)
		g.Files = append(g.Files, p)
	}
	var inv float64
	const samples = 1000
	for i := 0; i < samples; i++ {
		inv += 1 / rate((float64(i)+0.5)/samples)
	}
	base := float64(span) / (float64(n) * inv / samples)

	t := start
	var line []byte
	emit := func(name string, b []byte) error {
		g.Records++
		if g.First.IsZero() {
			g.First = t
		}
		g.Last = t
		b = append(b, '\n')
		g.Bytes += int64(len(b))
		_, err := out[name].Write(b)
		return err
	}
	for i := 0; i < n; i++ {
		if i < nAgents {
			t = t.Add(time.Duration(50+w.rnd.Intn(500)) * time.Millisecond)
			if err := emit(ledgerFile, w.sessionStart(line[:0], t, w.agents[i])); err != nil {
				return nil, err
			}
			continue
		}
		t = t.Add(time.Duration(w.rnd.ExpFloat64() * base / rate(float64(i)/float64(n))))
		a := w.pickAgent()
		var name string
		switch r := w.rnd.Intn(100); {
		case r < 40:
			name, line = ledgerFile, w.ledger(line[:0], t, a)
			if w.rnd.Intn(20000) == 0 {
				line = line[:len(line)/2]
				g.Broken++
			}
		case r < 75:
			name, line = squidFile, w.squid(line[:0], t, a)
		case r < 93:
			name, line = tetragonFile, w.tetragon(line[:0], t, a)
		default:
			name, line = falcoFile, w.falco(line[:0], t, a)
		}
		if err := emit(name, line); err != nil {
			return nil, err
		}
	}
	for _, name := range names {
		if err := out[name].Flush(); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
	}
	for _, f := range files {
		if err := f.Close(); err != nil {
			return nil, err
		}
	}
	files = nil
	return g, nil
}
