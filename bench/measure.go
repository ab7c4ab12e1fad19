package bench

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/platform"
)

func startProfiles(cfg Config) (func() error, error) {
	var stops []func() error
	if cfg.CPUProfile != "" {
		f, err := os.Create(cfg.CPUProfile)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		stops = append(stops, func() error { pprof.StopCPUProfile(); return f.Close() })
	}
	if cfg.BlockProfile != "" {
		runtime.SetBlockProfileRate(int(time.Millisecond / 10))
		stops = append(stops, func() error {
			defer runtime.SetBlockProfileRate(0)
			f, err := os.Create(cfg.BlockProfile)
			if err != nil {
				return err
			}
			defer f.Close()
			return pprof.Lookup("block").WriteTo(f, 0)
		})
	}
	if cfg.MemProfile != "" {
		// Rewritten every few seconds, so what remains is from late in
		// the ingest, when the index is largest.
		stop, done := make(chan struct{}), make(chan error, 1)
		go func() {
			t := time.NewTicker(3 * time.Second)
			defer t.Stop()
			for {
				select {
				case <-stop:
					done <- nil
					return
				case <-t.C:
					if err := writeHeap(cfg.MemProfile); err != nil {
						done <- err
						return
					}
				}
			}
		}()
		stops = append(stops, func() error { close(stop); return <-done })
	}
	return func() error {
		var first error
		for _, s := range stops {
			if err := s(); err != nil && first == nil {
				first = err
			}
		}
		return first
	}, nil
}

// diskUsage is what du reports: allocated blocks, not apparent sizes.
func diskUsage(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			n += platform.DiskBytes(info)
		}
		return nil
	})
	return n
}

// peakRSS is the process's high-water resident set (VmHWM), in bytes.
func peakRSS() int64 { return procStatus("VmHWM") }

// procStatus reads a size in kB from /proc/self/status, in bytes.
func procStatus(key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// rssSampler records the peaks of the anonymous (Go heap and stacks) and
// file-backed (the index's memory-mapped segments) parts of the resident
// set, which VmHWM only reports summed.
type rssSampler struct {
	stop       chan struct{}
	done       chan struct{}
	anon, file int64
}

func sampleRSS() *rssSampler {
	s := &rssSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			s.anon = max(s.anon, procStatus("RssAnon"))
			s.file = max(s.file, procStatus("RssFile"))
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// peaks stops sampling and returns the peaks.
func (s *rssSampler) peaks() (anon, file int64) {
	close(s.stop)
	<-s.done
	return s.anon, s.file
}

// loadAvg is the 1-minute load average (0 where unknown).
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// cpuMark is a reading of the machine's and this process's CPU time.
type cpuMark struct {
	wall       time.Time
	busy, self time.Duration
}

func startCPU() cpuMark { return cpuMark{wall: time.Now(), busy: machineBusy(), self: selfCPU()} }

// others is the average number of cores other processes used since m.
func (m cpuMark) others() float64 {
	wall := time.Since(m.wall)
	if wall <= 0 || m.busy == 0 {
		return 0
	}
	other := (machineBusy() - m.busy) - (selfCPU() - m.self)
	return max(0, float64(other)/float64(wall))
}

// machineBusy is the non-idle CPU time of all cores, from /proc/stat.
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0
	}
	var ticks int64
	for i, v := range f[1:8] {
		n, _ := strconv.ParseInt(v, 10, 64)
		if i != 3 && i != 4 { // idle, iowait
			ticks += n
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ = 100
}

func selfCPU() time.Duration { return platform.ProcessCPU() }

func writeHeap(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("heap").WriteTo(f, 0)
}
