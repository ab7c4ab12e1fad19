// Package search is the console's search bar: a one-line input for a Bleve
// query string with a history of earlier queries. It only edits text; the
// timeline runs the query it submits.
package search
