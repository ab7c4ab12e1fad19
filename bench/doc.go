// Package bench measures cordon end to end: it writes a deterministic,
// realistic incident as raw records in the real formats (ledger, Squid,
// Falco, Tetragon), ingests them through the same path as `cordon ingest`,
// and times the queries the console runs on every keystroke.
package bench
