// Package search is the console's search bar: a one-line input for a query
// (docs/query.md) with a history of earlier queries. It only edits text; the
// timeline runs the query it submits.
package search
