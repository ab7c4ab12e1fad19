// Package incident is the application layer over an incident workspace on
// disk: the evidence store, checkpoints, rejects and (later) the journal.
// Every use case the console offers is a method here, so the CLI and tests
// reach it without a terminal.
package incident
