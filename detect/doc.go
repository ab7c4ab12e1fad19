// Package detect answers "which agent did this?" and flags the sequences
// that precede an escape: a time-aware identity map from session records,
// attribution of proxy and sensor events to agents, and detectors written
// as data — YAML rules (docs/rules.md) run by an Engine over any Source of
// events, producing Findings per agent.
package detect
