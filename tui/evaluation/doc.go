// Package evaluation is the console's Evaluation pane: a suite's tests
// scored on the case (eval.Score), each with its controls' outcomes;
// enter opens a test's tries on the timeline, or for a missed control
// the events that should have made it answer.
package evaluation
