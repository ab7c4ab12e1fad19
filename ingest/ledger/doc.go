// Package ledger parses cordon's forensic ledger v1 (docs/ledger.md): the
// JSON Lines record an agent harness keeps of sessions, tool calls, policy
// decisions and human interventions.
package ledger
