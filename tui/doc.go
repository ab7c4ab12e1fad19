// Package tui is cordon's console. The root model only routes: it owns the
// size, the global keys, which pane has focus and the header and status
// lines; each pane (timeline, detail, agents, findings, the playbook's
// steps, the journal, and the search bar, facet picker and one-line
// prompt) is its own package with its own Update and View.
//
// One convention throughout: a pointer method that changes the model is
// called on its own line (cmd := m.move(1); return m, cmd), never inside
// `return m, m.move(1)`, where Go may copy m before the call changes it.
package tui
