// Package detail is the console's event pane: every field of one event, its
// origin, the events linked to it (same call, process, session, or agent
// within ±30 s) as rows that open in turn, and the raw record pretty-printed.
package detail
