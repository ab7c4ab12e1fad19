// Package incidenttest builds small incident workspaces for tests of the
// layers above incident (the console, the CLI) from real-format evidence
// kept in incident/testdata.
package incidenttest
