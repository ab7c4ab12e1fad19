// Package incident is the application layer over an incident workspace on
// disk: the evidence store, checkpoints, rejects and the use cases over them.
// Every use case the console offers is a method here, journaled through
// package journal, so the CLI and tests reach it without a terminal.
package incident
