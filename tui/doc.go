// Package tui is cordon's console over one case handle (incident.Handle).
// The root model only routes: it owns the size, the global keys, which
// pane has focus, the way back (one navigation stack) and the header and
// status lines; each pane (timeline, detail, agents, findings, the
// playbook's steps, the journal, the assistant, a drill's questions, and
// the search bar, facet picker and one-line prompt) is its own package
// with its own Update, View and help.KeyMap.
//
// One convention throughout: a pointer method that changes the model is
// called on its own line (cmd := m.move(1); return m, cmd), never inside
// `return m, m.move(1)`, where Go may copy m before the call changes it.
package tui
