// Package ingest reads evidence files: the registry of parsers (one package
// per format family below it, sharing the contract in ingest/parse), format
// sniffing from content, and the driver that frames records, keeps per-file
// checkpoints atomically with the events, and keeps rejects that never stop
// a run.
package ingest
