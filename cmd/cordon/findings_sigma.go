package main

import (
	"fmt"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/sigma"
)

// withSigma adds the Sigma rules under paths to rules (nil: the case's
// own). A rule cordon refuses is named on stderr with its place and
// reason, and the others run.
func withSigma(e *env, ws *incident.Workspace, rules []detect.Rule, paths []string) ([]detect.Rule, error) {
	if rules == nil {
		cfg, err := ws.Config()
		if err != nil {
			return nil, err
		}
		if rules, err = cfg.LoadRules(); err != nil {
			return nil, err
		}
	}
	set, err := sigma.Load(nil, paths...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	for _, r := range set.Refused {
		fmt.Fprintf(e.stderr, "sigma: refused: %v\n", r)
	}
	for _, r := range set.Unfed {
		fmt.Fprintf(e.stderr, "sigma: loaded, can never fire: %v\n", r)
	}
	fmt.Fprintf(e.stderr, "sigma: %d rule(s) loaded (%d of them no source can feed), %d refused, %d only as part of a correlation\n",
		len(set.Rules), len(set.Unfed), len(set.Refused), set.Members)
	rules = append(rules, set.Rules...)
	if err := detect.Unique(rules); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	return rules, nil
}
