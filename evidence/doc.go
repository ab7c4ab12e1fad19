// Package evidence holds cordon's normalized Event model, the typed Query
// with its one parser (docs/query.md), and the Store that indexes and
// searches events, an in-memory Matcher that evaluates a query as the index
// would, and StoreSource for reading a store in time order. Bleve is the
// embedded backend, translated to in one place; its types never leave this
// package.
package evidence
