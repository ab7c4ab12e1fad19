// Package drill runs tabletop exercises: a sample incident's evidence is
// replayed in scenario time, injects reach the team as it goes, and a
// debrief scores what they found, how fast, and what they missed.
package drill
