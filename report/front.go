package report

import (
	"encoding/json"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"slices"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/playbook"
)

// Front is the report's first page, for a reader who reads nothing else:
// the status, five sentences, the impact in a few lines and the team's
// decisions. It names no event id; each sentence links to the section
// that proves it, and that section lists the ids.
type Front struct {
	// Contained is the case's Assessment's: a kill time is recorded and
	// every kill-switch layer is stopped; Status says it in words, with
	// the open layers.
	Contained  bool       `json:"contained"`
	Status     string     `json:"status"`
	OpenLayers []string   `json:"open_layers"`
	Sentences  []Sentence `json:"sentences"`
	// Impact is the impact in a few plain lines.
	Impact    []string   `json:"impact"`
	Decisions []Decision `json:"decisions"`
}

// Sentence is one sentence of the summary: Section is the anchor of the
// section that proves it, Events the ids it rests on, every one of them
// listed in that section. A sentence saying that nothing happened has none.
type Sentence struct {
	Text    string   `json:"text"`
	Section string   `json:"section"`
	Events  []string `json:"events"`
}

// Decision is one of the team's decisions: a subject named, a step done
// or skipped, an action run, an attribution corrected.
type Decision struct {
	Time    time.Time `json:"time"`
	Who     string    `json:"who"`
	Text    string    `json:"text"`
	Section string    `json:"section"`
}

// Section anchors: the same in Markdown (GitHub's heading slugs) and HTML.
const (
	secImpact      = "impact"
	secAttribution = "attribution"
	secFindings    = "findings"
	secKillSwitch  = "kill-switch"
	secActions     = "responder-actions"
)

// maxFrontDecisions bounds the decisions on the first page.
const maxFrontDecisions = 8

// sentenceIDs is how many ids a sentence rests on: enough to trace it.
const sentenceIDs = 3

// incidentName is cordon.yaml's name, else the subject and the day the
// evidence begins.
func incidentName(configured string, s Summary) string {
	if n := strings.TrimSpace(configured); n != "" {
		return n
	}
	day := "no evidence"
	if !s.First.IsZero() {
		day = s.First.Format("2006-01-02")
	}
	if len(s.Subject) == 0 {
		return "Incident of " + day
	}
	return strings.Join(s.Subject, ", ") + ", " + day
}

// front writes the first page from the sections it summarizes.
func front(r Report, cs incident.Case, entries []journal.Entry) Front {
	f := Front{OpenLayers: []string{}, Sentences: []Sentence{}, Decisions: []Decision{}}
	a := cs.Assessment
	for _, l := range a.Layers {
		if l.State != capability.Stopped {
			f.OpenLayers = append(f.OpenLayers, playbook.Layer(l.Layer).Title()+" ("+string(l.State)+")")
		}
	}
	f.Contained = a.Contained
	f.Status = incident.Headline(a)
	f.Sentences = append(f.Sentences, whoSentence(r), didSentence(r), reachedSentence(r), leftSentence(r), openSentence(r, cs, f.OpenLayers))
	f.Impact = impactLines(r.Impact)
	f.Decisions = decisions(entries)
	return f
}

func whoSentence(r Report) Sentence {
	s := r.Summary
	if len(s.Subject) == 0 {
		return Sentence{Text: "No agent is named as the subject, and no finding names one.", Section: secAttribution, Events: []string{}}
	}
	var ids []string
	n := 0
	for _, row := range r.Attribution.Sessions {
		if slices.Contains(s.Subject, row.Agent) {
			n++
			if len(ids) < sentenceIDs {
				ids = append(ids, row.StartEvent)
			}
		}
	}
	how := "the first agent of the ranking by concern"
	if s.SubjectFrom == "journal" {
		how = "named by " + s.SubjectBy
	}
	return Sentence{Text: fmt.Sprintf("%s (%s) acted in %d session(s); the evidence runs from %s to %s.",
		strings.Join(s.Subject, ", "), how, n, reportTime(s.First), reportTime(s.Last)), Section: secAttribution, Events: orEmpty(ids)}
}

func didSentence(r Report) Sentence {
	if len(r.Findings) == 0 {
		return Sentence{Text: "No detector found a suspicious sequence.", Section: secFindings, Events: []string{}}
	}
	top := r.Findings[0]
	for _, f := range r.Findings[1:] {
		if detect.SeverityRank(f.Severity) > detect.SeverityRank(top.Severity) {
			top = f
		}
	}
	sev := ""
	if len(r.Summary.BySeverity) > 0 {
		sev = " (" + countsLine(r.Summary.BySeverity) + ")"
	}
	who := ""
	if top.Agent != "" {
		who = " by " + top.Agent
	}
	return Sentence{Text: fmt.Sprintf("%d finding(s)%s; the most severe, %s, is %s%s from %s to %s.", len(r.Findings), sev,
		top.Severity, strings.TrimSuffix(top.Title, "."), who, reportTime(top.Start), reportTime(top.End)),
		Section: secFindings, Events: capList(top.Events, sentenceIDs)}
}

func reachedSentence(r Report) Sentence {
	var names, ids []string
	acquired := 0
	for _, l := range append(append([]CapabilityLine{}, r.Impact.Credentials...), r.Impact.Capabilities...) {
		if l.Origin != capability.Acquired {
			continue
		}
		acquired++
		if len(names) < 3 {
			n := string(l.Kind) + " " + l.Value
			if l.Kind == capability.Place {
				n = "host " + l.Value + " outside its sandbox"
			}
			if l.Owner != "" && l.Owner != l.Agent {
				n += " of " + l.Owner
			}
			names = append(names, n)
			if len(l.Events) > 0 {
				ids = append(ids, l.Events[0])
			}
		}
	}
	if acquired == 0 {
		return Sentence{Text: "It acquired no capability its grant did not give.", Section: secImpact, Events: []string{}}
	}
	more := ""
	if acquired > len(names) {
		more = fmt.Sprintf(" and %d more", acquired-len(names))
	}
	return Sentence{Text: fmt.Sprintf("It acquired %d capabilities its grant did not give: %s%s.", acquired, strings.Join(names, ", "), more),
		Section: secImpact, Events: orEmpty(ids)}
}

func leftSentence(r Report) Sentence {
	im := r.Impact
	if len(im.DataOut) == 0 {
		return Sentence{Text: fmt.Sprintf("No data left beyond the allowlist (%s went to destinations it names).", detect.SizeText(im.Allowed)),
			Section: secImpact, Events: []string{}}
	}
	var total int64
	for _, d := range im.DataOut {
		total += d.Bytes
	}
	d := im.DataOut[0]
	return Sentence{Text: fmt.Sprintf("%s left beyond the allowlist to %d destination(s), most to %s (%s, allowlist: %s).",
		detect.SizeText(total), len(im.DataOut), d.Destination, detect.SizeText(d.Bytes), d.Allowlist),
		Section: secImpact, Events: capList(d.Events, sentenceIDs)}
}

func openSentence(r Report, cs incident.Case, open []string) Sentence {
	if cs.ContainedAt.IsZero() {
		return Sentence{Text: "No containment time is recorded: every capability may still be live (" + r.Summary.Containment + ").",
			Section: secKillSwitch, Events: layerIDs(r.Layers)}
	}
	a := cs.Assessment
	if a.Contained {
		text := "Contained at " + reportTime(a.ContainedAt) + " (killed " + reportTime(a.Kill) + "); every kill-switch layer is stopped."
		if !a.ContainedAt.Equal(a.Kill) {
			text = "Killed at " + reportTime(a.Kill) + ", contained only at " + reportTime(a.ContainedAt) + ", when the last capability stopped; every kill-switch layer is stopped now."
		}
		return Sentence{Text: text, Section: secKillSwitch, Events: layerIDs(r.Layers)}
	}
	return Sentence{Text: fmt.Sprintf("Killed at %s, but not contained: still open are %s.", reportTime(a.Kill), strings.Join(open, ", ")),
		Section: secKillSwitch, Events: layerIDs(r.Layers)}
}

// layerIDs are a few ids the open layers' checks counted.
func layerIDs(layers []LayerStatus) []string {
	ids := []string{}
	for _, l := range layers {
		if l.Status == incident.CheckVerified {
			continue
		}
		for _, id := range l.Events {
			if len(ids) < sentenceIDs && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// impactLines are the impact in a few plain lines.
func impactLines(im Impact) []string {
	var out int64
	for _, d := range im.DataOut {
		out += d.Bytes
	}
	lines := []string{fmt.Sprintf("Data out beyond the allowlist: none; %s to allowed destinations", detect.SizeText(im.Allowed))}
	if len(im.DataOut) > 0 {
		lines[0] = fmt.Sprintf("Data out beyond the allowlist: %s to %d destination(s); %s to allowed ones", detect.SizeText(out), len(im.DataOut), detect.SizeText(im.Allowed))
	}
	count := func(ls []CapabilityLine) (acq, live int) {
		for _, l := range ls {
			if l.Origin == capability.Acquired {
				acq++
			}
			if l.Stopped == string(capability.Live) || l.Stopped == string(capability.CannotTell) {
				live++
			}
		}
		return
	}
	a, l := count(im.Credentials)
	lines = append(lines, fmt.Sprintf("Credentials: %d, %d acquired, %d live or cannot tell", len(im.Credentials), a, l))
	a, l = count(im.Capabilities)
	lines = append(lines, fmt.Sprintf("Other capabilities: %d, %d acquired, %d live or cannot tell", len(im.Capabilities), a, l))
	if len(im.Victims) > 0 {
		var names []string
		for _, v := range im.Victims {
			names = append(names, v.Agent)
		}
		lines = append(lines, "Other agents affected: "+strings.Join(names, ", ")+" (their credentials acquired)")
	} else {
		lines = append(lines, "Other agents affected: none")
	}
	return lines
}

// decisions are the team's key decisions, oldest first, at most
// maxFrontDecisions (the latest kept: the case's current course).
func decisions(entries []journal.Entry) []Decision {
	out := []Decision{}
	for _, e := range entries {
		var text string
		switch e.Type {
		case journal.EntrySubjectSet:
			text = "named the subject: " + e.Text
		case journal.EntryStepDone:
			text = "marked step " + e.Step + " done"
		case journal.EntryStepSkipped:
			text = "skipped step " + e.Step
		case journal.EntryActionRun:
			text = "ran the action of step " + e.Step
		case journal.EntryAttributionOverride:
			text = "corrected the attribution"
		case journal.EntrySuppression:
			var s detect.Scope
			_ = json.Unmarshal(e.Payload, &s) // no scope: said as "findings"
			text = "suppressed findings"
			if s.Detector != "" {
				text = "suppressed " + s.String()
			}
		default:
			continue
		}
		if e.Text != "" && e.Type != journal.EntrySubjectSet {
			text += ": " + e.Text
		}
		at := e.Time.UTC()
		if e.Type == journal.EntryStepDone {
			// a step that records a time (the kill) is shown at the time
			// the responder gave, and says when it was written down
			var p struct {
				At time.Time `json:"at"`
			}
			if json.Unmarshal(e.Payload, &p) == nil && !p.At.IsZero() && !p.At.Equal(e.Time) {
				at = p.At.UTC()
				text += " (recorded " + reportTime(e.Time) + ")"
			}
		}
		out = append(out, Decision{Time: at, Who: e.Actor.Name, Text: text, Section: secActions})
	}
	if len(out) > maxFrontDecisions {
		out = out[len(out)-maxFrontDecisions:]
	}
	return out
}

func orEmpty(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
