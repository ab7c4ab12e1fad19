package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
)

// Config is one benchmark run.
type Config struct {
	Events int // records to generate (default 100,000)
	// Span is the time the records are spread over (default DefaultSpan):
	// ten times the records over ten times the span keep each agent as
	// busy as before, the same span makes it ten times as busy
	Span    time.Duration
	Dir     string // parent of the scratch directory (default the system temp dir)
	Keep    bool   // keep the generated evidence and incident
	Queries int    // timed runs of each query (default 50)
	// Incident, when set, skips generating and ingesting: the queries are
	// timed on this incident, kept by an earlier run with Keep.
	Incident string
	// SkipFindings, with Incident, leaves out the whole-incident
	// detectors: only the queries and the console are timed.
	SkipFindings bool
	// CPUProfile and BlockProfile, when set, profile the ingest phase (the
	// query phase with Incident).
	CPUProfile, BlockProfile string
	// MemProfile, when set, gets a heap profile taken late in the ingest.
	MemProfile string
	// Live times the console's term, bare-word and page queries once a
	// second while the ingest runs (they take CPU from it).
	Live bool
	// Store, when set, keeps the events in that store
	// (victorialogs://host:port) instead of the index in the folder.
	Store string
	// Log, when set, hears what the benchmark is doing.
	Log func(string)
}

// Result is what a run measured.
type Result struct {
	Events        int64   `json:"events"`
	Records       int     `json:"records"`
	Rejects       int     `json:"rejects"`
	InputBytes    int64   `json:"input_bytes"`
	IngestSeconds float64 `json:"ingest_seconds"`
	IngestCPU     float64 `json:"ingest_cpu_seconds"` // this process, all threads
	EventsPerSec  float64 `json:"events_per_sec"`
	IndexBytes    int64   `json:"index_bytes"`
	BytesPerEvent float64 `json:"index_bytes_per_event"`
	PeakRSS       int64   `json:"peak_rss_bytes"` // up to the end of the ingest
	// PeakRSSRun is the peak over the whole run: the detectors' scan maps
	// the whole index, which counts in RSS as page cache.
	PeakRSSRun int64 `json:"peak_rss_run_bytes"`
	PeakAnon   int64 `json:"peak_rss_anon_bytes"` // sampled: heap and stacks
	PeakFile   int64 `json:"peak_rss_file_bytes"` // sampled: mapped index segments
	// FirstSearchable is the time from the start of the ingest to the
	// first event a query can find.
	FirstSearchable float64      `json:"first_searchable_seconds"`
	Queries         []QueryStats `json:"queries"`
	// LiveQueries are the queries timed while the ingest ran (Live).
	LiveQueries []QueryStats `json:"live_queries,omitempty"`
	// FindingsSeconds is how long the built-in detectors took over the
	// whole incident; Findings how many they raised.
	FindingsSeconds float64 `json:"findings_seconds"`
	Findings        int     `json:"findings"`
	// DetectSeconds and DetectCPU are the detectors run as cordon ingest
	// runs them at its end, their answer kept with the case (before the
	// queries and the console are timed); DetectFindings what it found.
	DetectSeconds  float64 `json:"detect_at_ingest_seconds"`
	DetectCPU      float64 `json:"detect_at_ingest_cpu_seconds"`
	DetectFindings int     `json:"detect_at_ingest_findings"`
	Machine        Machine `json:"machine"`
	Dir            string  `json:"dir,omitempty"` // kept scratch directory
}

// Machine describes where the figures were taken.
type Machine struct {
	CPUs       int     `json:"cpus"`
	GOMAXPROCS int     `json:"gomaxprocs"` // the ingest builds batches on one fewer
	GoVersion  string  `json:"go_version"`
	LoadBefore float64 `json:"load_before"` // 1-minute load average
	LoadAfter  float64 `json:"load_after"`
	// OtherCPU is how many cores other processes kept busy, on average,
	// while this one ingested: the figures are only as good as this is low.
	OtherCPU float64 `json:"other_cpu_during_ingest"`
}

// Run generates cfg.Events records, ingests them end to end into a fresh
// incident and times the console's queries on it.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Events <= 0 {
		cfg.Events = 100_000
	}
	if cfg.Queries <= 0 {
		cfg.Queries = 50
	}
	if cfg.Span <= 0 {
		cfg.Span = DefaultSpan
	}
	say := cfg.Log
	if say == nil {
		say = func(string) {}
	}
	if cfg.Incident != "" {
		return queriesOnly(ctx, cfg)
	}
	root, err := os.MkdirTemp(cfg.Dir, "cordon-bench-")
	if err != nil {
		return nil, fmt.Errorf("scratch directory: %w", err)
	}
	if !cfg.Keep {
		defer os.RemoveAll(root)
	}
	say(fmt.Sprintf("generating %d records over %s in %s", cfg.Events, cfg.Span, root))
	gen, err := Generate(filepath.Join(root, "evidence"), cfg.Events, cfg.Span)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	res := &Result{Records: gen.Records, InputBytes: gen.Bytes}
	res.Machine = Machine{CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(), LoadBefore: loadAvg()}
	if cfg.Keep {
		res.Dir = root
	}

	say(fmt.Sprintf("ingesting %d MiB", gen.Bytes>>20))
	incDir := filepath.Join(root, "incident")
	stop, err := startProfiles(cfg)
	if err != nil {
		return nil, err
	}
	rss := sampleRSS()
	began, cpu := time.Now(), startCPU()
	err = ingest(ctx, incDir, gen.Dir, cfg.Live, cfg.Store, res)
	res.IngestSeconds = time.Since(began).Seconds()
	res.Machine.OtherCPU = cpu.others()
	res.IngestCPU = (selfCPU() - cpu.self).Seconds()
	res.PeakAnon, res.PeakFile = rss.peaks()
	res.PeakRSS = peakRSS()
	if perr := stop(); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		return nil, err
	}
	res.EventsPerSec = float64(res.Events) / res.IngestSeconds
	say("running the detectors as cordon ingest does")
	if err := detectAtIngest(ctx, incDir, res); err != nil {
		return nil, err
	}
	res.IndexBytes = diskUsage(filepath.Join(incDir, "index.bleve"))
	if res.Events > 0 {
		res.BytesPerEvent = float64(res.IndexBytes) / float64(res.Events)
	}

	say("timing queries")
	ws, err := incident.Open(incDir)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	res.Queries, err = timeQueries(ctx, ws, cfg.Queries)
	if err != nil {
		return nil, err
	}
	say("running the detectors")
	if err := timeFindings(ctx, ws, res); err != nil {
		return nil, err
	}
	say("timing the console")
	frames, err := timeConsole(ctx, ws, cfg.Queries)
	if err != nil {
		return nil, err
	}
	res.Queries = append(res.Queries, frames...)
	res.PeakRSSRun = peakRSS()
	res.Machine.LoadAfter = loadAvg()
	return res, nil
}

// ingest runs the same path as `cordon ingest`: create the workspace,
// ingest the folder (read, sniff, parse, normalize, index), close.
func ingest(ctx context.Context, incDir, evidenceDir string, live bool, store string, res *Result) error {
	began := time.Now()
	ws, err := incident.Create(incDir, incident.Store(store))
	if err != nil {
		return err
	}
	w := watch(ctx, ws, began, live)
	files, err := ws.Ingest(ctx, []string{evidenceDir}, incident.IngestOptions{})
	res.FirstSearchable, res.LiveQueries = w.stop()
	if err != nil {
		ws.Close()
		return fmt.Errorf("ingest: %w", err)
	}
	for _, f := range files {
		if f.Err != nil {
			ws.Close()
			return fmt.Errorf("ingest %s: %w", f.Path, f.Err)
		}
		res.Rejects += f.Rejects
	}
	res.Events = ws.Counts().Total
	return ws.Close()
}

// detectAtIngest runs the detectors as cordon ingest does at its end, on
// the workspace open for writing, and keeps their answer for the console
// and the commands timed after: its wall and CPU time are the engine's
// share of an ingest.
func detectAtIngest(ctx context.Context, incDir string, res *Result) error {
	ws, err := incident.Create(incDir)
	if err != nil {
		return err
	}
	began, cpu := time.Now(), selfCPU()
	ch, err := ws.Detect(ctx, journal.CurrentActor(journal.ViaCLI))
	res.DetectSeconds, res.DetectCPU = time.Since(began).Seconds(), (selfCPU() - cpu).Seconds()
	if err != nil {
		ws.Close()
		return fmt.Errorf("detectors: %w", err)
	}
	res.DetectFindings = ch.Total
	return ws.Close()
}

// queriesOnly times the queries on a kept incident.
func queriesOnly(ctx context.Context, cfg Config) (*Result, error) {
	ws, err := incident.Open(cfg.Incident)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	res := &Result{Events: ws.Counts().Total, Dir: cfg.Incident}
	res.Machine = Machine{CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(), LoadBefore: loadAvg()}
	res.IndexBytes = diskUsage(filepath.Join(cfg.Incident, "index.bleve"))
	if res.Events > 0 {
		res.BytesPerEvent = float64(res.IndexBytes) / float64(res.Events)
	}
	stop, err := startProfiles(cfg)
	if err != nil {
		return nil, err
	}
	res.Queries, err = timeQueries(ctx, ws, cfg.Queries)
	if err == nil && !cfg.SkipFindings {
		err = timeFindings(ctx, ws, res)
	}
	if err == nil {
		var frames []QueryStats
		frames, err = timeConsole(ctx, ws, cfg.Queries)
		res.Queries = append(res.Queries, frames...)
	}
	if perr := stop(); perr != nil && err == nil {
		err = perr
	}
	res.PeakRSSRun = peakRSS()
	res.Machine.LoadAfter = loadAvg()
	return res, err
}

// timeFindings runs the built-in detectors over the whole incident, as
// cordon findings does (the console reads the run every reader of a
// workspace shares, Workspace.CachedFindings, which costs the same).
func timeFindings(ctx context.Context, ws *incident.Workspace, res *Result) error {
	began := time.Now()
	r, err := ws.ScanWith(ctx, incident.FindingsOptions{})
	if err != nil {
		return fmt.Errorf("findings: %w", err)
	}
	res.FindingsSeconds, res.Findings = time.Since(began).Seconds(), len(r.Findings)
	return nil
}
