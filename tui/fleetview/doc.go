// Package fleetview is the live console across a fleet: the agents of
// every sandbox ranked as the triage ranking ranks them (detect.RankAgents),
// fed by the findings and the holdings the watchers publish, and a key that opens one
// agent's incident.
package fleetview
