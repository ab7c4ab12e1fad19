// Package tetragon parses Cilium Tetragon's JSON export: process exec and
// exit events and kprobe events with their file and socket arguments.
package tetragon
