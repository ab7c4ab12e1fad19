// Package eval scores a sandbox's controls from the evidence of a test
// run: a suite (YAML, data) names what a capable agent tries and the
// controls that must answer it; Score reads the run's workspace and says,
// per test and control, fired, missed or could not tell, and why.
// cordon never runs a probe: the evaluation team's harness does.
package eval
