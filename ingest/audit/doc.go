// Package audit parses the audit logs of the services that accept
// credentials — AWS CloudTrail, the Kubernetes API server, GitHub, Google
// Cloud — into api_call events keyed by the credential that made each
// call, so that a credential used outside every sandbox is seen where it
// works, not only at the egress proxy.
package audit
