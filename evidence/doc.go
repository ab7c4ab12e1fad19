// Package evidence holds cordon's normalized Event model and the Store that
// indexes and searches events, with the one set of query-string builders
// every caller uses and the counts over time the timeline draws. Bleve is
// the embedded backend; its types never leave this package.
package evidence
