package detect

import (
	"sort"
	"time"
)

// The kinds of capability an agent can hold. Each is stopped by a layer of
// the kill switch (playbook layers), which incident maps them to.
const (
	// CapCredential is a secret it could present: issued to its session,
	// read from a file, or another session's that it used.
	CapCredential = "credential"
	// CapPlace is where it acted from: its sandbox, or a host outside every
	// sandbox where one of its credentials was used.
	CapPlace = "place"
	// CapJob is work it queued outside itself (a CI job, a scheduled run
	// in another system) through a tool.
	CapJob = "job"
	// CapProcess is a process it started to outlive its loop (nohup,
	// setsid, a daemon).
	CapProcess = "process"
	// CapSchedule is a scheduler entry it wrote (crontab, at, timer).
	CapSchedule = "schedule"
	// CapPersisted is a file it wrote that runs later (a unit, an rc file,
	// a hook, a script on PATH).
	CapPersisted = "persisted"
	// CapDataOut is a destination its data went to.
	CapDataOut = "data-out"
)

// How a capability came to the agent.
const (
	OriginGranted  = "granted"  // its session_start issued it
	OriginAcquired = "acquired" // the grant did not give it
)

// Use is one piece of evidence that a capability was used or alive.
type Use struct {
	Time time.Time `json:"time"`
	ID   string    `json:"id"`
	// Refused says the use was refused (a proxy 407, a denial): the
	// capability was tried, not used.
	Refused bool `json:"refused,omitempty"`
	// From is where it was used from (an IP, a container), when known.
	From string `json:"from,omitempty"`
	// Source is the source that saw it (ledger, proxy, sensor).
	Source string `json:"source,omitempty"`
}

// Capability is one entry of an agent's capability set.
type Capability struct {
	Agent  string `json:"agent"`
	Kind   string `json:"kind"`
	Value  string `json:"value"`
	Origin string `json:"origin"`
	// Owner is the agent a credential was issued to ("" when none is
	// known): for an acquired credential, its victim.
	Owner string `json:"owner,omitempty"`
	// CredKind is a credential's kind as its session_start gave it
	// (proxy-auth, aws-access-key, github-token), or the catalogue's class
	// for a secret file; for a place, the kind of the first credential
	// used from it, which says what source can see it.
	CredKind string `json:"cred_kind,omitempty"`
	// How says in one line how it was granted or acquired.
	How string `json:"how"`
	// Acquired is the evidence of the acquisition (or of the grant).
	Acquired []string `json:"acquired,omitempty"`
	// Uses are the evidence it was used or alive, oldest first.
	Uses []Use `json:"uses,omitempty"`
	// EndAt is its own end (a revocation, an exit, a cancellation, the
	// proxy refusing it from then on); zero when the evidence shows none.
	EndAt time.Time `json:"end_at,omitzero"`
	// EndHow says what ended it; EndID is the event that shows it.
	EndHow string `json:"end_how,omitempty"`
	EndID  string `json:"end_id,omitempty"`
	// BytesOut is what a data-out destination received; Methods how;
	// Allowlist whether the session's allowlist named the host "exact",
	// admitted it by "wildcard" only, or "none".
	BytesOut  int64    `json:"bytes_out,omitempty"`
	Methods   []string `json:"methods,omitempty"`
	Allowlist string   `json:"allowlist,omitempty"`
	// SkewMargin is the clock skew margin of the sources its uses came
	// from: a use closer than this to a stop time may be either side of it.
	SkewMargin time.Duration `json:"skew_margin,omitempty"`

	placeOf []string // the pod, container and sandbox whose removal ends it
	pid     int      // a process's pid, by which a person kills it
}

// First is the first use (or the acquisition when there was no use).
func (c *Capability) First() time.Time {
	if len(c.Uses) > 0 {
		return c.Uses[0].Time
	}
	return time.Time{}
}

// Last is the last use, refused or not.
func (c *Capability) Last() time.Time {
	if len(c.Uses) > 0 {
		return c.Uses[len(c.Uses)-1].Time
	}
	return time.Time{}
}

// LastOK is the last use that was not refused.
func (c *Capability) LastOK() (Use, bool) {
	for i := len(c.Uses) - 1; i >= 0; i-- {
		if !c.Uses[i].Refused {
			return c.Uses[i], true
		}
	}
	return Use{}, false
}

// UsedAfter returns the uses not refused at or after t.
func (c *Capability) UsedAfter(t time.Time) []Use {
	i := sort.Search(len(c.Uses), func(i int) bool { return !c.Uses[i].Time.Before(t) })
	var out []Use
	for _, u := range c.Uses[i:] {
		if !u.Refused {
			out = append(out, u)
		}
	}
	return out
}

// StopTime is when the capability must be dead: the later of the agent's
// containment and its own end.
func (c *Capability) StopTime(contained time.Time) time.Time {
	if c.EndAt.After(contained) {
		return c.EndAt
	}
	return contained
}

// Capabilities are the capability sets of an incident's agents.
type Capabilities struct {
	byAgent map[string][]*Capability
}

// For returns an agent's capability set: kind, then granted before
// acquired, then first use.
func (cs *Capabilities) For(agent string) []Capability {
	if cs == nil {
		return nil
	}
	list := cs.byAgent[agent]
	out := make([]Capability, len(list))
	for i, c := range list {
		out[i] = *c
	}
	return out
}

// Agents lists the agents with a capability set, sorted.
func (cs *Capabilities) Agents() []string {
	if cs == nil {
		return nil
	}
	return sortedKeys(cs.byAgent)
}

// kindOrder is the order capability kinds are listed in.
var kindOrder = map[string]int{CapCredential: 0, CapPlace: 1, CapJob: 2, CapProcess: 3, CapSchedule: 4, CapPersisted: 5, CapDataOut: 6}

func sortCaps(list []*Capability) {
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Kind != b.Kind {
			return kindOrder[a.Kind] < kindOrder[b.Kind]
		}
		if a.Origin != b.Origin {
			return a.Origin == OriginGranted
		}
		if a.Kind == CapDataOut && a.BytesOut != b.BytesOut {
			return a.BytesOut > b.BytesOut
		}
		return a.Value < b.Value
	})
}
