// Package facet is the console's field filter: pick a field, then one of its
// values with live counts for the current query; the value becomes a
// required clause of the timeline's filter.
package facet
