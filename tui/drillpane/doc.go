// Package drillpane is the console's side of a tabletop drill: the status bar
// (scenario time, speed, the next inject, the last one), the facilitator's
// clock keys, and the Questions pane where the team reads the briefing and
// answers. A tick advances the drill so evidence reaches the index as
// scenario time passes.
package drillpane
