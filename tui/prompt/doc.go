// Package prompt is the one-line input at the bottom of the console that
// asks the responder for a note, a time or a reason on a pane's behalf.
package prompt
