// Package detect flags the sequences that precede an escape: detectors
// written as data — YAML rules (docs/rules.md) run by an Engine over any
// Source of events — produce Findings per agent, and the same pass builds
// each agent's capability set. It reads attribution from package
// attribution, and evaluates queries in memory with evidence.Matcher.
package detect
