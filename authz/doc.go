// Package authz serves Envoy's external-authorization API (ext_authz v3
// over gRPC) from a watcher's verdicts: an Envoy egress gateway asks per
// request, the agent is found from the request's source address, proxy
// login and the sandbox keys the gateway's configuration adds, and the
// answer is the verdict cordon.verdict.<agent> gives, with its receipt.
package authz
