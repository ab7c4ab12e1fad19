// Package findings is the console's detections pane: first the agents,
// ranked by concern with the reason in words; enter opens an agent's
// episodes (its findings), and enter on an episode filters the timeline to
// its evidence. esc goes back a level.
package findings
