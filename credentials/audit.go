package credentials

import "strings"

// Tags the audit-log parsers put on a call to a service's API that says
// something about a credential beyond its use: the service refused the
// credential itself (unknown, revoked, expired: a 401, AWS's
// InvalidClientTokenId), not merely the action; or the call revoked a
// credential, named after the prefix (revokes:AKIA…), whichever identity
// made it.
const (
	TagCredRefused = "cred-refused"
	TagRevokes     = "revokes:"
)

// Revoked returns the credentials an event's tags say it revoked.
func Revoked(tags []string) []string {
	var out []string
	for _, t := range tags {
		if id, ok := strings.CutPrefix(t, TagRevokes); ok && id != "" {
			out = append(out, id)
		}
	}
	return out
}
