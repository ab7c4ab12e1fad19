// Package detect answers "which agent did this?" and flags the sequences
// that precede an escape: a time-aware identity map from session records,
// attribution of proxy and sensor events to agents, and detectors written
// as data — YAML rules (docs/rules.md) run by an Engine over any Source of
// events, producing Findings per agent. It also holds what the console
// reads about agents from a store: their summaries, attribution coverage
// and paths, and the events linked to an event (a tool call and its effects).
package detect
