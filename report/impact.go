package report

import (
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/incident"
)

// Impact is the report's first section: what left, which credentials are
// exposed and whose they are, who else is affected, and for each
// capability of the subject its last successful use and whether it is
// stopped — read from the same capability checks as the kill switch.
type Impact struct {
	// DataOut are destinations beyond the allowlist (by wildcard only, or
	// not named at all), most bytes first; Allowed sums what went to
	// destinations the allowlist names exactly.
	DataOut []DataOut `json:"data_out"`
	Allowed int64     `json:"allowed_bytes"`
	// Credentials are the subject's credentials, own and acquired.
	Credentials []CapabilityLine `json:"credentials"`
	// Victims are the agents whose credentials the subject acquired.
	Victims []Victim `json:"victims"`
	// Capabilities are every other capability the subject held.
	Capabilities []CapabilityLine `json:"capabilities"`
}

// DataOut is one destination the subject's data went to.
type DataOut struct {
	Agent       string    `json:"agent"`
	Destination string    `json:"destination"`
	Bytes       int64     `json:"bytes"`
	Allowlist   string    `json:"allowlist"`
	Methods     []string  `json:"methods"`
	First       time.Time `json:"first"`
	Last        time.Time `json:"last"`
	Events      []string  `json:"events"`
}

// CapabilityLine is one capability as the report lists it.
type CapabilityLine struct {
	Agent  string            `json:"agent"`
	Kind   capability.Kind   `json:"kind"`
	Value  string            `json:"value"`
	Origin capability.Origin `json:"origin"`
	Owner  string            `json:"owner,omitempty"`
	How    string            `json:"how"`
	// LastOK is its last use that was not refused (zero: none seen).
	LastOK     time.Time `json:"last_ok,omitzero"`
	LastOKFrom string    `json:"last_ok_from,omitempty"`
	// Stopped is the case's Assessment of it: "stopped", "live", "cannot
	// tell", or "not judged" (no kill time recorded, or no layer stops it).
	Stopped string `json:"stopped"`
	// Check is the Assessment's line for it.
	Check  string   `json:"check,omitempty"`
	Events []string `json:"events"`
}

// Victim is an agent whose credential the subject acquired.
type Victim struct {
	Agent       string   `json:"agent"`
	Credentials []string `json:"credentials"`
	Sessions    []string `json:"sessions"`
}

// impact builds the section from the subject's capabilities and the
// capability checks of the layers.
func impact(cs incident.Case, layers []LayerStatus, sessions []SessionRow) Impact {
	im := Impact{DataOut: []DataOut{}, Credentials: []CapabilityLine{}, Victims: []Victim{}, Capabilities: []CapabilityLine{}}
	victims := map[string]*Victim{}
	for _, c := range cs.Capabilities {
		if c.Kind == capability.DataOut {
			if c.Allowlist == "exact" {
				im.Allowed += c.BytesOut
				continue
			}
			d := DataOut{Agent: c.Agent, Destination: c.Value, Bytes: c.BytesOut, Allowlist: c.Allowlist,
				Methods: append([]string{}, c.Methods...), First: c.First().UTC(), Last: c.Last().UTC(), Events: useIDs(c.Uses)}
			im.DataOut = append(im.DataOut, d)
			continue
		}
		if c.Kind == capability.Place && c.Origin == capability.Granted {
			continue
		}
		line := capabilityLine(c, &cs.Assessment)
		if c.Kind != capability.Credential {
			im.Capabilities = append(im.Capabilities, line)
			continue
		}
		im.Credentials = append(im.Credentials, line)
		if c.Owner != "" && c.Owner != c.Agent {
			v := victims[c.Owner]
			if v == nil {
				v = &Victim{Agent: c.Owner, Credentials: []string{}, Sessions: []string{}}
				victims[c.Owner] = v
			}
			v.Credentials = append(v.Credentials, c.Value)
			for _, s := range sessions {
				if s.Agent == c.Owner && !slices.Contains(v.Sessions, s.Session) && slices.Contains(s.Credentials, c.Value) {
					v.Sessions = append(v.Sessions, s.Session)
				}
			}
		}
	}
	sort.SliceStable(im.DataOut, func(i, j int) bool { return im.DataOut[i].Bytes > im.DataOut[j].Bytes })
	for _, a := range slices.Sorted(maps.Keys(victims)) {
		im.Victims = append(im.Victims, *victims[a])
	}
	return im
}

func capabilityLine(c capability.Capability, a *capability.Assessment) CapabilityLine {
	l := CapabilityLine{Agent: c.Agent, Kind: c.Kind, Value: c.Value, Origin: c.Origin, Owner: c.Owner, How: c.How,
		Events: capList(c.Acquired, maxReportIDs)}
	if u, ok := c.LastOK(); ok {
		l.LastOK, l.LastOKFrom = u.Time.UTC(), u.From
	}
	v, ok := a.Of(&c)
	switch {
	case a.Kill.IsZero():
		l.Stopped, l.Check = "not judged", "no kill time is recorded"
	case !ok:
		l.Stopped, l.Check = "not judged", "no kill-switch layer stops it"
	default:
		l.Stopped, l.Check = string(v.State), v.Line
	}
	return l
}

func useIDs(us []capability.Use) []string {
	out := []string{}
	for _, u := range us {
		if len(out) == maxReportIDs {
			break
		}
		out = append(out, u.ID)
	}
	return out
}

// Line sums the impact up in one line for the summary: what left, and
// what is still live.
func (im Impact) Line() string {
	var parts []string
	var out int64
	for _, d := range im.DataOut {
		out += d.Bytes
	}
	if out > 0 {
		parts = append(parts, fmt.Sprintf("%s left beyond the allowlist, to %d destination(s)", detect.SizeText(out), len(im.DataOut)))
	}
	acquired, live := 0, 0
	for _, l := range append(append([]CapabilityLine{}, im.Credentials...), im.Capabilities...) {
		if l.Origin == capability.Acquired {
			acquired++
		}
		if l.Stopped == "live" {
			live++
		}
	}
	if acquired > 0 {
		parts = append(parts, fmt.Sprintf("%d acquired capabilities", acquired))
	}
	if len(im.Victims) > 0 {
		var names []string
		for _, v := range im.Victims {
			names = append(names, v.Agent)
		}
		parts = append(parts, "credentials of "+strings.Join(names, ", ")+" exposed")
	}
	if live > 0 {
		parts = append(parts, fmt.Sprintf("%d still live", live))
	}
	if len(parts) == 0 {
		return "no data left beyond the allowlist; nothing acquired"
	}
	return strings.Join(parts, "; ")
}
