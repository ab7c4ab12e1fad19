// Package serve puts the incident console behind an SSH server: every
// session gets its own console on one shared workspace (which the server
// may also be filling from evidence it follows), keys come from
// authorized_keys files re-read when they change, and nothing but the
// console and a few read-only commands is reachable.
package serve
