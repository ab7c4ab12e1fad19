// Package watch runs the detection engine on the fleet's stream: events
// from a durable consumer go through a reorder buffer into one
// detect.Pass, and what each released batch changed in the findings is
// published on cordon.findings.<severity>.<agent>, with the published
// state kept in a JetStream key-value bucket so that a restarted watcher
// neither loses nor repeats a finding.
package watch
