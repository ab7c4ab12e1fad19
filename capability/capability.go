package capability

import (
	"slices"
	"sort"
	"strconv"
	"time"
)

// Kind is what sort of capability an entry is.
type Kind string

// The kinds of capability an agent can hold. Each is stopped by a layer of
// the kill switch (LayerOf).
const (
	// Credential is a secret it could present: issued to its session,
	// read from a file, printed to it, or another session's that it used.
	Credential Kind = "credential"
	// Place is where it acted from: its sandbox, or a host outside every
	// sandbox where one of its credentials was used.
	Place Kind = "place"
	// Job is work it queued outside itself through a tool (a CI job).
	Job Kind = "job"
	// Workload is something it created through a service's API that runs
	// or authenticates on its own: a pod or job, an access key, a token.
	Workload Kind = "workload"
	// Process is a process it started to outlive its loop (nohup, setsid).
	Process Kind = "process"
	// Schedule is a scheduler entry it wrote (crontab, at, timer).
	Schedule Kind = "schedule"
	// Persisted is a file it wrote that runs later (a unit, an rc file).
	Persisted Kind = "persisted"
	// DataOut is a destination its data went to: reported, not stopped.
	DataOut Kind = "data-out"
	// ToolCall is a session's tool calls, which may be in flight at the
	// kill; keyed by session.
	ToolCall Kind = "tool-call"
)

// Kinds lists the kinds in the order they are shown.
func Kinds() []Kind {
	return []Kind{Credential, Place, Job, Workload, ToolCall, Process, Schedule, Persisted, DataOut}
}

// Origin says whether the grant gave a capability.
type Origin string

// The origins.
const (
	Granted  Origin = "granted"  // its session_start issued it
	Acquired Origin = "acquired" // the grant did not give it
)

// Provenance says how a holder came to hold a capability.
type Provenance string

// The provenances, from the grant to what it made for itself.
const (
	ByGrant   Provenance = "granted" // its session was issued it
	ByRead    Provenance = "read"    // it read the file that holds it
	ByPrint   Provenance = "printed" // a tool's output printed it to it
	ByName    Provenance = "named"   // its command named it
	ByUse     Provenance = "used"    // a use from its sandbox shows it held it
	ByCreate  Provenance = "created" // it created it through another capability
	ByWrite   Provenance = "wrote"   // it wrote the file
	ByStart   Provenance = "started" // it started the process
	BySend    Provenance = "sent"    // its data went there
	ByCall    Provenance = "called"  // its own tool calls
	ByQueue   Provenance = "queued"  // a tool of its queued the work
	ByOutside Provenance = "outside" // one of its credentials was used from there
)

// Use is one piece of evidence that a capability was used or alive.
type Use struct {
	Time time.Time `json:"time"`
	ID   string    `json:"id"`
	// Dur is how long the use lasted when its record says (a proxy's
	// elapsed time): it began at Time-Dur when the record is written at
	// its end, as Squid's is.
	Dur Millis `json:"duration_ms,omitempty"`
	// Refused says the use was refused (a proxy 407, a denial): the
	// capability was tried, not used.
	Refused bool `json:"refused,omitempty"`
	// From is where it was used from (an IP, a container), when known.
	From string `json:"from,omitempty"`
	// Open says no record of its end was seen (a tool call with no
	// result): it may still be running.
	Open bool `json:"open,omitempty"`
	// Source is the source that saw it (ledger, proxy, sensor, audit).
	Source string `json:"source,omitempty"`
	// Format is the format of the record that saw it.
	Format string `json:"format,omitempty"`
}

// Began is when the use began: its record's time less its duration.
func (u Use) Began() time.Time { return u.Time.Add(-time.Duration(u.Dur)) }

// Millis is a duration written in JSON as whole milliseconds, as the
// evidence's duration_ms is.
type Millis time.Duration

// MarshalJSON writes the milliseconds.
func (m Millis) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatInt(time.Duration(m).Milliseconds(), 10)), nil
}

// UnmarshalJSON reads milliseconds.
func (m *Millis) UnmarshalJSON(b []byte) error {
	n, err := strconv.ParseInt(string(b), 10, 64)
	*m = Millis(time.Duration(n) * time.Millisecond)
	return err
}

// Authority says who recorded an end.
type Authority string

// The authorities of an end.
const (
	// Authoritative: the issuer or runner recorded it (a revocation in
	// CloudTrail, a sensor's process exit, a Kubernetes delete), or every
	// later use was refused.
	Authoritative Authority = "authoritative"
	// Claimed: only text could say so — a person's note nothing the
	// issuer recorded corroborates, or words the agent could have written.
	Claimed Authority = "claimed"
)

// End is one record that a capability ended.
type End struct {
	At  time.Time `json:"at"`
	How string    `json:"how"`
	ID  string    `json:"id"`
	// By names the record's source as a person reads it (CloudTrail, the
	// runtime sensor, the proxy's refusals, a human_intervention record).
	By        string    `json:"by"`
	Authority Authority `json:"authority"`
	// Source is the source of the record (for its clock's skew).
	Source string `json:"source,omitempty"`
}

// Capability is one entry of an agent's capability set.
type Capability struct {
	Agent string `json:"agent"`
	Kind  Kind   `json:"kind"`
	// Value is its key: what names it in evidence (a credential id or
	// placeholder, a host, a job id, a pid, a file path, a session).
	Value  string `json:"value"`
	Origin Origin `json:"origin"`
	// Provenance is how the agent came to hold it.
	Provenance Provenance `json:"provenance,omitempty"`
	// Owner is the agent a credential was issued to ("" when none is
	// known): for an acquired credential, its victim. A workload's owner
	// is the account it runs as.
	Owner string `json:"owner,omitempty"`
	// CredKind is a credential's kind as its session_start gave it
	// (proxy-auth, aws-access-key), the catalogue's class for a secret
	// file, a key's kind by its form; for a place, the kind of the first
	// credential used from it, which says what source can see it.
	CredKind string `json:"cred_kind,omitempty"`
	// How says in one line how it was granted or acquired.
	How string `json:"how"`
	// Acquired is the evidence of the acquisition (or of the grant).
	Acquired []string `json:"acquired,omitempty"`
	// Uses are the evidence it was used or alive, oldest first (Compact
	// keeps a bounded sample; Minutes counts them all).
	Uses []Use `json:"uses,omitempty"`
	// Minutes count its uses per minute, refused or not.
	Minutes []Minute `json:"minutes,omitempty"`
	// Ends are the records that it ended, authoritative or claimed,
	// oldest first.
	Ends []End `json:"ends,omitempty"`
	// BytesOut is what a data-out destination received; Methods how;
	// Allowlist whether the session's allowlist named the host "exact",
	// admitted it by "wildcard" only, or "none".
	BytesOut  int64    `json:"bytes_out,omitempty"`
	Methods   []string `json:"methods,omitempty"`
	Allowlist string   `json:"allowlist,omitempty"`
	// SkewMargin is the clock skew margin of the sources its uses came
	// from: a use closer than this to a stop time may be either side of it.
	SkewMargin time.Duration `json:"skew_margin,omitempty"`
	// Pid is a process's pid, by which a person kills it.
	Pid int `json:"pid,omitempty"`
	// PlaceOf are the pod, container and sandbox whose removal ends it.
	PlaceOf []string `json:"-"`
	// mk are the uses a pass added (AddUse) and has not settled, and what
	// Thin dropped of them (nil: none, nothing): Settle makes them Uses,
	// Compact adds what was dropped.
	mk *making
}

// First is the first use (zero when there was none).
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

// UseCount is how many uses the evidence shows, refused or not.
func (c *Capability) UseCount() int {
	if len(c.Minutes) == 0 {
		return len(c.Uses)
	}
	n := 0
	for _, m := range c.Minutes {
		n += m.N
	}
	return n
}

// Ended is its earliest authoritative end.
func (c *Capability) Ended() (End, bool) {
	for _, e := range c.Ends {
		if e.Authority == Authoritative {
			return e, true
		}
	}
	return End{}, false
}

// Claims are the ends only text says.
func (c *Capability) Claims() []End {
	var out []End
	for _, e := range c.Ends {
		if e.Authority == Claimed {
			out = append(out, e)
		}
	}
	return out
}

// AddEnd records an end, keeping the ends in time order and each record
// once.
func (c *Capability) AddEnd(e End) {
	for _, x := range c.Ends {
		if x.ID == e.ID && x.Authority == e.Authority {
			return
		}
	}
	c.Ends = append(c.Ends, e)
	sort.SliceStable(c.Ends, func(i, j int) bool { return c.Ends[i].At.Before(c.Ends[j].At) })
}

// Key identifies a capability within a case.
func (c *Capability) Key() string { return c.Agent + "\x00" + string(c.Kind) + "\x00" + c.Value }

// Clone is a copy of c that shares nothing with it that either may change.
func (c *Capability) Clone() *Capability {
	d := c.CloneSharingUses()
	d.Uses, d.mk = slices.Clone(c.Uses), c.mk.clone()
	return d
}

// CloneSharingUses is Clone but for the uses, which the copy shares with
// c as they are now: for a copy that is settled (Settle) and finished
// while c is not changed, and goes on after.
func (c *Capability) CloneSharingUses() *Capability {
	d := *c
	d.mk = c.mk.shared()
	d.Acquired = slices.Clone(c.Acquired)
	d.Minutes = slices.Clone(c.Minutes)
	d.Ends = slices.Clone(c.Ends)
	d.Methods = slices.Clone(c.Methods)
	d.PlaceOf = slices.Clone(c.PlaceOf)
	return &d
}
