// Package vlogs is an evidence.Store on a VictoriaLogs server or cluster,
// over its HTTP API: events are written as JSON lines into a stream of
// their case, and the typed query is translated to LogsQL here, every
// value quoted, so that many cases share one cluster and a case never sees
// another's events. Checkpoints, like the rest of the case, stay in the
// workspace folder (docs/victorialogs.md).
package vlogs
