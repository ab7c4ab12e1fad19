// Package evidence holds cordon's normalized Event model and the Store that
// indexes and searches events. Bleve is the embedded backend; its types never
// leave this package.
package evidence
