// Package storetest is the contract every evidence.Store keeps, as tests:
// Run indexes a set of events into a fresh store and checks what the
// console, the detectors and attribution rely on against the Matcher
// evaluated over the same events. The Bleve store and the in-memory store
// pass it; a second backend would be held to it too (docs/architecture.md).
package storetest
