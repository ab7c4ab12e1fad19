// Package detect answers "which agent did this?" and flags the sequences
// that precede an escape: a time-aware identity map from session records,
// attribution of proxy and sensor events to agents, and detectors.
package detect
