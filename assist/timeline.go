package assist

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/redact"
)

// offlinePhase maps an event to the playbook phase it feeds, or "" for a
// routine event the timeline leaves out. A finding's phase wins.
func offlinePhase(e PacketEvent, findingPhase map[string]string) string {
	if ph := findingPhase[e.ID]; ph != "" {
		return ph
	}
	switch {
	case e.Kind == evidence.KindSessionEnd && e.Status == "killed":
		return "contain"
	case e.Kind == evidence.KindSessionEnd:
		return "review"
	case e.Kind == evidence.KindHumanIntervention:
		return "contain"
	case e.Kind == evidence.KindSessionStart:
		return "attribute"
	case e.Decision == evidence.DecisionDeny, e.Kind == evidence.KindAlert:
		return "detect"
	case e.Kind == evidence.KindCredAccess, e.Flagged:
		return "triage"
	case e.Kind == evidence.KindFileWrite:
		return "eradicate"
	}
	return ""
}

// How far back a run may be joined: among the last runLookback runs, with
// its last event at most runGap before.
const (
	runLookback = 4
	runGap      = time.Minute
)

// offlineTimeline lists the notable moments in time order: runs of
// similar events (same agent, kind, decision and phase) become one claim,
// and each finding adds a claim at its start.
func offlineTimeline(p Packet, findings []detect.Finding, r *redact.Redactor) Answer {
	findingPhase := map[string]string{}
	for _, f := range findings {
		for _, id := range f.Events {
			if findingPhase[id] == "" {
				findingPhase[id] = phase(f.Phase)
			}
		}
	}
	type run struct {
		evs   []PacketEvent
		phase string
	}
	var runs []run
	routine := 0
	for _, e := range p.Events {
		ph := offlinePhase(e, findingPhase)
		if ph == "" {
			routine++
			continue
		}
		// Join a recent run of the same agent, kind, decision and phase:
		// a loop interleaves its exec, connect and request events, and
		// each kind is one moment, not one line per host.
		joined := false
		for i := len(runs) - 1; i >= max(0, len(runs)-runLookback) && !joined; i-- {
			last := runs[i].evs[len(runs[i].evs)-1]
			if runs[i].phase == ph && last.Agent == e.Agent && last.Kind == e.Kind && last.Decision == e.Decision &&
				!e.Flagged && !last.Flagged && e.Time.Sub(last.Time) <= runGap {
				runs[i].evs = append(runs[i].evs, e)
				joined = true
			}
		}
		if !joined {
			runs = append(runs, run{evs: []PacketEvent{e}, phase: ph})
		}
	}
	findings = append([]detect.Finding(nil), findings...)
	sort.SliceStable(findings, func(i, j int) bool { return findings[i].Start.Before(findings[j].Start) })
	fclaims := findingClaims(p, findings, r)
	var a Answer
	fi := 0
	// Merge finding claims in by start time, before the run they open.
	for _, rn := range runs {
		for fi < len(findings) && !findings[fi].Start.After(rn.evs[0].Time) {
			a.Claims = append(a.Claims, fclaims[fi])
			fi++
		}
		a.Claims = append(a.Claims, runClaim(rn.evs, rn.phase))
	}
	a.Claims = append(a.Claims, fclaims[fi:]...)
	a.Notes = offlineNote(p, "timeline") + fmt.Sprintf("; %d notable moments, %d routine events (allowed requests, tool calls and the like) not listed", len(runs), routine)
	return a
}

func runClaim(evs []PacketEvent, ph string) Claim {
	e := evs[0]
	if len(evs) == 1 {
		text := describe(e)
		if e.Flagged {
			text = "Flagged as instruction-like, quoted as data: " + text
		}
		return Claim{Text: text, EventIDs: ids(e), Phase: ph}
	}
	end := evs[len(evs)-1]
	var targets []string
	seen := map[string]bool{}
	for _, x := range evs {
		if x.Target != "" && !seen[x.Target] {
			seen[x.Target] = true
			targets = append(targets, x.Target)
		}
	}
	what := e.Kind
	if e.Decision != "" {
		what += " " + e.Decision
	}
	text := fmt.Sprintf("%s–%s %s: %d × %s", stamp(e.Time), stamp(end.Time), agentName(e.Agent), len(evs), what)
	if len(targets) > 0 {
		more := ""
		if len(targets) > 3 {
			more = fmt.Sprintf(" and %d more", len(targets)-3)
			targets = targets[:3]
		}
		text += " (" + strings.Join(targets, ", ") + more + ")"
	}
	return Claim{Text: text, EventIDs: capIDs(ids(evs...)), Phase: ph}
}
