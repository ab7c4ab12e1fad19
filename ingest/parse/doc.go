// Package parse is what every format parser and the ingest driver share:
// the Parser contract (framing, records, sinks, rejects) and the helpers
// parsers use to fill evidence.Event fields the same way. It sits below the
// parser packages so that ingest can register them without a cycle.
package parse
