// Package steps is the Playbook pane: the phases with their progress, the
// steps with their status and evidence check, and the selected step's
// guidance, checklist, saved queries, check and actions. Every change goes
// through the incident use cases in a command and lands in the journal.
package steps
