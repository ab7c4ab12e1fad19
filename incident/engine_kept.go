package incident

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/platform"
)

// The detectors' result — findings, capability sets, each source's
// coverage, clock skews — is kept with the case (engine/result.gob: a
// stream of Go gob messages, the meta first, then the findings, then the
// capability sets in chunks; one message of 20 MB decoded in 360 ms, the
// stream in 70), so
// that a command run after the ingest reads it rather than scanning the
// index again. It is a function of the evidence (its key), the rules, the
// redaction key the pass names keys with, the index's mapping and the
// engine's version: any of them changing makes it be computed again.

const (
	engineDir  = "engine"
	resultFile = "result.gob"
	// engineVersion names the detectors' pass and what it keeps: a result
	// kept by another version is computed again.
	engineVersion = "scan/6"
)

// keptResult is the file's content: the result in plain data.
type keptResult struct {
	Meta         resultMeta
	Findings     []detect.Finding
	Capabilities map[string][]*capability.Capability
	Holdings     map[string]capability.Holding // every agent's of Capabilities
	Coverage     capability.CoverageState
	Skews        []detect.Skew
	Kills        map[string]time.Time
	// load makes Capabilities of a result read back (readKept): a set
	// is decoded when first asked for
	load capability.Loader
}

func keep(meta resultMeta, r detect.Result) keptResult {
	k := keptResult{Meta: meta, Findings: r.Findings, Capabilities: r.Capabilities.ByAgent(), Coverage: r.Coverage.State(), Skews: r.Skews, Kills: r.Kills,
		Holdings: map[string]capability.Holding{}}
	for _, a := range r.Capabilities.Agents() {
		k.Holdings[a] = r.Capabilities.Holding(a)
	}
	return k
}

func (k keptResult) result() detect.Result {
	if k.Findings == nil {
		k.Findings = []detect.Finding{}
	}
	var caps *capability.Set
	switch {
	case k.load.All != nil:
		caps = capability.NewLazySet(k.Holdings, k.load)
	case k.Capabilities != nil:
		caps = capability.NewSet(k.Capabilities)
	default:
		caps = capability.NewSet(map[string][]*capability.Capability{})
	}
	return detect.Result{Findings: k.Findings, Capabilities: caps, Coverage: capability.FromState(k.Coverage), Skews: k.Skews, Kills: k.Kills}
}

// resultMeta says what the kept result is of.
type resultMeta struct {
	Engine   string `json:"engine"`
	Model    string `json:"capability_model"`
	Mapping  int    `json:"mapping_version"`
	Evidence string `json:"evidence"` // the evidence key: total, last event, counts
	Rules    string `json:"rules"`    // sha256 of the rules in force
	Redactor string `json:"redactor"` // sha256 of the workspace's redaction key
	// HeldForOrder counts the stored events a follow held for order
	// when it kept the result (follow_marks.go): a result that misses
	// them is not of the evidence, and no reader takes it for so
	HeldForOrder int64 `json:"held_for_order,omitempty"`
}

// resultMeta is what a result computed now would be of; ok is false when
// it cannot be kept (the rules cannot be read, or the workspace keeps no
// redaction key and the pass names keys with a key of its own).
func (w *Workspace) resultMeta() (resultMeta, bool) {
	rules, ok := w.rulesHash()
	if !ok {
		return resultMeta{}, false
	}
	key, err := os.ReadFile(filepath.Join(w.Dir, redactKeyFile))
	if err != nil || len(key) < 32 {
		return resultMeta{}, false
	}
	ks := sha256.Sum256(key)
	return resultMeta{Engine: engineVersion, Model: capabilityModel, Mapping: evidence.MappingVersion,
		Evidence: w.evidence(), Rules: rules, Redactor: hex.EncodeToString(ks[:])}, true
}

// rulesHash is the sha256 of the rules in force, which the kept result and
// the kept Assessment are both functions of.
func (w *Workspace) rulesHash() (string, bool) {
	rules, err := w.rules()
	if err != nil {
		return "", false
	}
	rb, err := json.Marshal(rules)
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(rb)
	return hex.EncodeToString(sum[:]), true
}

// keptScan is the kept result, if it is of meta.
func (w *Workspace) keptScan(meta resultMeta) (detect.Result, bool) {
	k, err := readKept(w.Dir, func(m resultMeta) bool { return m == meta })
	switch {
	case errors.Is(err, os.ErrNotExist):
		return detect.Result{}, false
	case errors.Is(err, errOtherMeta):
		w.stale = staleWhy(k.Meta, meta)
		return detect.Result{}, false
	case err != nil:
		w.stale = "the kept result cannot be read"
		if errors.Is(err, errKeptHead) {
			w.stale = "the kept result is another cordon version's, or damaged"
		}
		return detect.Result{}, false
	}
	return k.result(), true
}

// staleWhy says why a kept result is not the evidence's now.
func staleWhy(kept, now resultMeta) string {
	switch {
	case kept.Engine != now.Engine || kept.Model != now.Model || kept.Mapping != now.Mapping:
		return "the kept result is of another cordon version"
	case kept.Rules != now.Rules:
		return "the rules changed since the result was kept"
	case kept.Redactor != now.Redactor:
		return "the workspace's redaction key changed since the result was kept"
	case kept.HeldForOrder > 0:
		return fmt.Sprintf("the result was kept by a follow that held %d events for order and stopped before adding them", kept.HeldForOrder)
	}
	return "the evidence changed since the result was kept"
}

// Stale says why this process ran the detectors rather than read the
// kept result ("" when it read it, or none was kept), and whether it kept
// what the run gave for the next command.
func (w *Workspace) Stale() (why string, kept bool) {
	w.findingsMu.Lock()
	defer w.findingsMu.Unlock()
	return w.stale, w.keptRun.Load()
}

// keepScan writes the result by atomic rename. A process that opened the
// workspace to read keeps it too when the workspace is its own and
// private (the next command then reads it rather than running the
// detectors again); on read-only media, or in a workspace shared with
// other users, the result stays in memory.
func (w *Workspace) keepScan(meta resultMeta, r detect.Result) error {
	_, err := w.keepTimed(meta, r)
	return err
}

// keepTimed is keepScan, saying how long keeping the result took:
// encoding it and writing it to disk, whose sync waits behind the index's
// own writes (a follow spaces its keeps by it).
func (w *Workspace) keepTimed(meta resultMeta, r detect.Result) (time.Duration, error) {
	if platform.Writable(w.Dir) != nil || !w.write && journal.CheckWritable(w.Dir, false) != nil {
		return 0, nil
	}
	start := time.Now()
	path := filepath.Join(w.Dir, engineDir, resultFile)
	err := w.keepFileWith(path, func(out io.Writer) error { return writeKept(out, keep(meta, r)) })
	took := time.Since(start)
	if err != nil {
		return took, err
	}
	w.keptRun.Store(true)
	return took, nil
}

// Recompute makes this process run the detectors again rather than read
// the kept result (findings --recompute); a workspace open for writing
// keeps what the run gives.
func (w *Workspace) Recompute() {
	w.findingsMu.Lock()
	w.scanned, w.findingsKey, w.recompute = detect.Result{}, "", true
	w.findingsMu.Unlock()
}
