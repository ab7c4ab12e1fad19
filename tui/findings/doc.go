// Package findings is the console's detections pane: one row per finding
// of the detectors, most severe first, with its span, agent, detector and
// explanation. Selecting a finding filters the timeline to its evidence.
package findings
