// Package agents is the console's attribution pane: one row per agent with
// the identity its sessions bound it to (model, run, sandbox, IP), when it
// was active, and how much of what it did was denied. Opening an agent
// shows its profile: every session (sandbox, IP, interval, how it ended, an
// IP shared with another agent), and its capabilities, granted and
// acquired, live or stopped; each line opens its evidence on the timeline.
package agents
