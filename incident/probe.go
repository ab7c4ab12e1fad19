package incident

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cordon-ir/cordon/assist"
)

// probeFile keeps the assistant endpoint's probe in the workspace: what
// kind of server it is and the context it gives the model, so that it is
// asked once, not before every request.
const probeFile = "assistant-probe.json"

// AssistantProbe is what the workspace knows of cfg's endpoint: the probe
// kept from before when it is of the same endpoint and model, else a new
// one, kept for next time (in memory only when the workspace cannot be
// written). refresh probes again whatever is kept (cordon assist --check).
func (w *Workspace) AssistantProbe(ctx context.Context, cfg assist.Config, refresh bool, opts ...assist.Option) (assist.Probe, error) {
	if cfg.Offline {
		return assist.Probe{}, fmt.Errorf("%w: no endpoint to probe: set %s (or %s)", assist.ErrConfig, assist.EnvBaseURL, assist.EnvAPIKey)
	}
	key := assist.ProbeKey(cfg)
	w.probeMu.Lock()
	defer w.probeMu.Unlock()
	if !refresh {
		if w.probe == nil {
			if p, ok := w.readProbe(); ok {
				w.probe = &p
			}
		}
		if w.probe != nil && w.probe.Key == key {
			return *w.probe, nil
		}
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
	w.probe = &p
	if w.write {
		// A probe that cannot be kept is asked again next time: no
		// reason to fail the request for it.
		_ = w.writeProbe(p)
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

func (w *Workspace) readProbe() (assist.Probe, bool) {
	data, err := os.ReadFile(filepath.Join(w.Dir, probeFile))
	if err != nil {
		return assist.Probe{}, false
	}
	var p assist.Probe
	return p, json.Unmarshal(data, &p) == nil
}

func (w *Workspace) writeProbe(p assist.Probe) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(w.Dir, probeFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(w.Dir, probeFile))
}
