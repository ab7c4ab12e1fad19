// Package sigma reads Sigma detection and correlation rules (specification
// v2.1) and compiles them into detect.Rules that cordon's one engine runs:
// a coarse query the store answers (the log source's events) and a Filter
// that holds the rule's whole meaning, matched in memory with Sigma's
// semantics. A processing pipeline, written in pySigma's YAML, maps Sigma's
// log sources and field names onto cordon's events. What cordon cannot run
// is refused, with its file, line, column and the reason.
package sigma
