// Package evidence holds cordon's normalized Event model and the Store that
// indexes and searches events, with the one set of query-string builders
// every caller uses, an in-memory Matcher that evaluates a query string as
// the index would, and StoreSource for reading a store in time order.
// Bleve is the embedded backend; its types never leave this package.
package evidence
