// Package common holds what every pane of the console shares: its size, the
// styles built for one terminal, the one key map, the messages panes send
// each other through the root, and the helpers that make evidence text safe
// and fit for a cell.
package common
