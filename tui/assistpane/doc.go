// Package assistpane is the Assistant pane: a defender-mode task over the
// responder's selection (a search, a finding, an event and its related
// events), what will be sent and a y/n before it is, the answer streamed
// in, then its claims with the events they cite and whether cordon could
// verify them.
package assistpane
