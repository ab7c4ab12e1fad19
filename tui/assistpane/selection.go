package assistpane

import (
	"fmt"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// Selection is the evidence the pane works on and how the pane names it.
// Label may hold text from the evidence: it is made safe when drawn.
type Selection struct {
	Sel   assist.Selection
	Label string
}

// Whole is the whole incident: Ask adds every finding to it.
func Whole() Selection {
	return Selection{Label: "the whole incident and its findings"}
}

// FromQuery is the timeline's query (filter and search) with its hit
// count when known; an empty query is the whole incident. name is the
// query as the header shows it (a finding's evidence by its name, not its
// ids).
func FromQuery(q evidence.Query, name string, hits uint64, known bool) Selection {
	if q.IsAll() {
		return Whole()
	}
	label := "the timeline's query " + q.String()
	if name != "" && name != q.String() {
		label = "the timeline: " + name
	}
	if known {
		label = fmt.Sprintf("%s (%s events)", label, common.Count(int64(hits)))
	}
	return Selection{Sel: assist.Selection{Query: q}, Label: label}
}

// FromFinding is a finding: its events, and the finding itself for the
// model to read.
func FromFinding(f detect.Finding) Selection {
	return Selection{
		Sel:   assist.Selection{IDs: append([]string(nil), f.Events...), Findings: []detect.Finding{f}},
		Label: fmt.Sprintf("finding %s of %s (%d events)", f.Detector, agentOr(f.Agent), f.EventTotal()),
	}
}

// FromEvent is an event and the events related to it (as far as the
// event pane has found them).
func FromEvent(ev evidence.Event, related []attribution.Related) Selection {
	ids := []string{ev.ID}
	seen := map[string]bool{ev.ID: true}
	for _, g := range related {
		for _, r := range g.Events {
			if !seen[r.ID] {
				seen[r.ID] = true
				ids = append(ids, r.ID)
			}
		}
	}
	label := "event " + ev.ID
	if n := len(ids) - 1; n > 0 {
		label += fmt.Sprintf(" and %d related events", n)
	}
	return Selection{Sel: assist.Selection{IDs: ids}, Label: label}
}

func agentOr(a string) string {
	if a == "" {
		return "no agent"
	}
	return a
}
