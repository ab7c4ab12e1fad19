// Package playbook holds the responder's playbook: phases of steps with
// guidance, checklists, saved queries and evidence checks, read from YAML
// and linted with line numbers, and the built-in agent-containment playbook
// whose Contain phase is a layered kill switch. It renders templates but
// never touches a store: evaluating checks against the evidence belongs to
// the incident workspace.
package playbook
