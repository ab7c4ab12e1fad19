// Package indicators is the console's indicator register: the values a
// responder hands to the tools that block, hunt or alert (destinations,
// outside addresses, credential ids, files, processes), each with its
// sightings, agents and findings, opening its events on the timeline.
package indicators
