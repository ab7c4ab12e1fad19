// Package attribution answers "which agent did this?": a time-aware
// identity map from session records binds keys (container, pod, source IP,
// credential) to agents over intervals, attributes proxy and sensor events
// through it, tracks credentials that changed hands, and says how an event
// was attributed. It also holds what the console reads about agents from a
// store: their summaries, the attribution coverage of each source, and the
// links that tie one event to others — a tool call to what it caused, an
// event to its related ones.
package attribution
