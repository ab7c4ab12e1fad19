// Package inspect parses UK AISI Inspect AI eval logs, the JSON log and the
// .eval ZIP container, as a stream: one sample's events are held at a time,
// so logs of hundreds of megabytes fit in bounded memory.
package inspect
