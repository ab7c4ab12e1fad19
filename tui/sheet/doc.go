// Package sheet is a list the console shows over its panes for what a `:`
// command lists (the marks, the files not ingested, the verbs): j/k move,
// enter opens a row's event, esc closes.
package sheet
