// Package timeline is the console's main pane: the events matching a query,
// in time order, as a virtualized list. Only a window of rows around the
// cursor is held, fetched page by page from the store by cursor, so a
// million-event incident scrolls as fast as a small one.
package timeline
