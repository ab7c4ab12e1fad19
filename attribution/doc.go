// Package attribution answers "which agent did this?": a time-aware
// identity map from session records binds keys (container, pod, source IP,
// credential) to agents over intervals, attributes proxy and sensor events
// through it, tracks credentials that changed hands, and says how an event
// was attributed. It also holds what the console reads about agents from a
// store: their summaries and the attribution coverage of each source.
package attribution
