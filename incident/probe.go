package incident

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cordon-ir/cordon/assist"
)

// probeFile keeps the assistant endpoint's probe in the workspace: what
// kind of server it is and the context it gives the model, so that it is
// asked once, not before every request.
const probeFile = "assistant-probe.json"

// ProbeTTL is how long a kept probe stands: a server's context or models
// change when it is restarted with other flags, and a day-old answer is
// asked again.
const ProbeTTL = 24 * time.Hour

// AssistantProbe is what the workspace knows of cfg's endpoint: the probe
// kept of the same endpoint and model, younger than ProbeTTL, else a new
// one, kept for next time beside those of other endpoints (in memory only
// when the workspace cannot be written: a read-only or served console
// still reads the kept ones). refresh probes again whatever is kept
// (cordon assist --check).
func (w *Workspace) AssistantProbe(ctx context.Context, cfg assist.Config, refresh bool, opts ...assist.Option) (assist.Probe, error) {
	if cfg.Offline {
		return assist.Probe{}, fmt.Errorf("%w: no endpoint to probe: set %s (or %s)", assist.ErrConfig, assist.EnvBaseURL, assist.EnvAPIKey)
	}
	key := assist.ProbeKey(cfg)
	w.probeMu.Lock()
	defer w.probeMu.Unlock()
	if w.probes == nil {
		w.probes = w.readProbes()
	}
	if p, ok := w.probes[key]; ok && !refresh && time.Since(p.At) < ProbeTTL {
		return p, nil
	}
	client, err := assist.NewClient(cfg, opts...)
	if err != nil {
		return assist.Probe{}, err
	}
	p := client.Probe(ctx)
	if p.Err != "" && p.Endpoint == "" && ctx.Err() != nil {
		return p, ctx.Err()
	}
	if p.Err != "" {
		// a server not up yet is asked again next time, not taken at
		// the defaults for good
		return p, nil
	}
	w.probes[key] = p
	if w.write {
		// A probe that cannot be kept is asked again next time: no
		// reason to fail the request for it.
		_ = w.writeProbes(w.probes)
	}
	return p, nil
}

// probedConfig is cfg with what its endpoint's probe found filled in.
func (w *Workspace) probedConfig(ctx context.Context, cfg assist.Config, opts ...assist.Option) assist.Config {
	if cfg.Offline {
		return cfg
	}
	p, err := w.AssistantProbe(ctx, cfg, false, opts...)
	if err != nil {
		return cfg
	}
	return p.Apply(cfg)
}

// probesFile is the kept probes, one per endpoint and model.
type probesFile struct {
	Probes map[string]assist.Probe `json:"probes"`
}

// readProbes reads the kept probes; a file of the earlier form (one
// probe) is read as one.
func (w *Workspace) readProbes() map[string]assist.Probe {
	out := map[string]assist.Probe{}
	data, err := os.ReadFile(filepath.Join(w.Dir, probeFile))
	if err != nil {
		return out
	}
	var f probesFile
	if json.Unmarshal(data, &f) == nil && f.Probes != nil {
		return f.Probes
	}
	var one assist.Probe
	if json.Unmarshal(data, &one) == nil && one.Key != "" {
		out[one.Key] = one
	}
	return out
}

func (w *Workspace) writeProbes(ps map[string]assist.Probe) error {
	data, err := json.MarshalIndent(probesFile{Probes: ps}, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(w.Dir, probeFile), append(data, '\n'))
}
