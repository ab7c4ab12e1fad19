// Package ingest reads evidence files: one parser per format normalizing to
// evidence.Event, format sniffing from content, per-file checkpoints kept
// atomically with the events, and rejects that never stop a run.
package ingest
