package detect

import (
	"path"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/capability"
)

// authKeys are the keys under which finishing looks up the issuer's or
// runner's own record of c's end (capScan.auth): its own key, and for what
// ran or was written in a pod, the pod's name.
func authKeys(c *capability.Capability) []string {
	keys := []string{c.Value}
	if c.Kind == capability.Process || c.Kind == capability.Schedule || c.Kind == capability.Persisted {
		for _, p := range c.PlaceOf {
			keys = append(keys, podName(p))
		}
	}
	return keys
}

// named is a name a person may say they ended c by, with the kind whose
// verbs end it.
type named struct {
	name string
	kind capability.Kind
}

// claimNames are the names under which finishing looks up what a person
// says ended c (capScan.ends).
func claimNames(c *capability.Capability) []named {
	names := []named{{c.Value, c.Kind}}
	switch c.Kind {
	case capability.Persisted, capability.Schedule:
		// a file by its name when the name is its own (sync-keeper.py, not
		// "agent"), a crontab by the word
		if b := path.Base(c.Value); strings.ContainsAny(b, ".-_") && len(b) >= 6 {
			names = append(names, named{b, c.Kind})
		}
		if c.Kind == capability.Schedule && strings.Contains(c.Value, "cron") {
			names = append(names, named{"crontab", c.Kind}, named{"crontabs", c.Kind})
		}
	case capability.Process:
		// killed by its pid, not by its exec id
		names = nil
		if c.Pid > 0 {
			names = append(names, named{"pid:" + strconv.Itoa(c.Pid), c.Kind})
		}
	}
	// gone with its pod, container or sandbox
	for _, p := range c.PlaceOf {
		names = append(names, named{p, capability.Persisted})
	}
	out := names[:0]
	for _, n := range names {
		if n.name != "" {
			out = append(out, n)
		}
	}
	return out
}

// endRecorded says an end was recorded under key (an issuer's record in
// auth, or a person's claim in ends): the next view finishes again the
// capabilities whose finishing reads that key, not every agent's set.
func (s *capScan) endRecorded(key string) {
	if s.endKeys == nil {
		s.endKeys = map[string]bool{}
	}
	s.endKeys[key] = true
}

// touchEnded marks changed every capability whose finishing reads a key an
// end was recorded under since the last view, and clears the keys.
func (s *capScan) touchEnded() {
	if len(s.endKeys) == 0 {
		return
	}
	for _, m := range s.caps {
		for _, c := range m {
			if s.readsEnded(c) {
				s.touch(c)
			}
		}
	}
	clear(s.endKeys)
}

func (s *capScan) readsEnded(c *capability.Capability) bool {
	for _, k := range authKeys(c) {
		if s.endKeys[k] {
			return true
		}
	}
	for _, n := range claimNames(c) {
		if s.endKeys[n.name] {
			return true
		}
	}
	return false
}
