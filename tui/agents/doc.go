// Package agents is the console's attribution pane: one row per agent with
// the identity its sessions bound it to (model, run, sandbox, IP), when it
// was active, and how much of what it did was denied. Selecting an agent
// filters the timeline to it.
package agents
