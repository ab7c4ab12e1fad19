// Package evaluation is the console's Evaluation pane: a suite's tests
// scored on the case for one run or the whole case (eval.ScoreWith, as
// `cordon eval run` scores), each with its controls' outcomes; r scores
// the next run, enter opens a test's tries on the timeline, or for a
// missed control the events that should have made it answer.
package evaluation
