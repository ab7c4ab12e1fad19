// Package proxy parses egress-proxy access logs: Squid's native format and
// an AI-agent firewall's custom and audit formats, and Envoy's JSON and
// default text access logs.
package proxy
