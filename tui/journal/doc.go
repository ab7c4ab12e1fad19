// Package journal is the Journal pane: the case journal newest first, one
// line per entry, filtered by type, followed as other consoles and the
// command line append to it, with the hash chain's verification on top.
package journal
