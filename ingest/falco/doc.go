// Package falco parses Falco JSON alerts of the syscall and k8s_audit
// sources, including drop notices and metrics snapshots that tell a
// responder the sensor missed events.
package falco
