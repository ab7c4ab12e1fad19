// Package relay reads events that another cordon already normalized (a
// stream's events, pulled into a workspace) as a format of their own, so
// that they enter a workspace through ingest like any evidence file,
// keeping the ids, sources, formats, raw records and origins they had.
package relay
