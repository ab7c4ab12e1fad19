package report

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/playbook"
)

// Attribution is the attribution table: every session the ledger
// recorded, and how the other events were tied to agents.
type Attribution struct {
	Sessions []SessionRow `json:"sessions"`
	// Via counts events by how their agent was set (attributed_via).
	Via          []evidence.Count `json:"via"`
	Unattributed int64            `json:"unattributed"`
	Ambiguous    int64            `json:"ambiguous"`
	// Conflicts are keys two acting sessions were bound to at once: their
	// events are ambiguous between both, not decided.
	Conflicts []ConflictRow `json:"conflicts"`
}

// ConflictRow is one binding conflict as the report states it.
type ConflictRow struct {
	Key     string    `json:"key"` // via=value
	Earlier string    `json:"earlier"`
	Later   string    `json:"later"`
	From    time.Time `json:"from"`   // the later start
	Active  time.Time `json:"active"` // the earlier session acting after it
}

// SessionRow is one session: the agent and what it was bound to, when.
type SessionRow struct {
	Agent       string    `json:"agent"`
	Session     string    `json:"session"`
	Run         string    `json:"run,omitempty"`
	Sandbox     string    `json:"sandbox,omitempty"`
	IP          string    `json:"ip,omitempty"`
	Container   string    `json:"container,omitempty"`
	Credentials []string  `json:"credentials"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end,omitzero"`
	EndStatus   string    `json:"end_status,omitempty"`
	StartEvent  string    `json:"start_event"`
	EndEvent    string    `json:"end_event,omitempty"`
}

// LayerStatus is one kill-switch layer, checked for the report on the
// evidence as it is now (Source "report"); when the last journaled check of
// its step agrees, Source is "journal" with who ran it and when.
type LayerStatus struct {
	Layer     playbook.Layer       `json:"layer"`
	Title     string               `json:"title"`
	Step      string               `json:"step"`
	StepTitle string               `json:"step_title"`
	Status    incident.CheckStatus `json:"status"`
	Summary   string               `json:"summary"`
	Source    string               `json:"source"`
	By        string               `json:"by,omitempty"`
	At        time.Time            `json:"at"`
	Events    []string             `json:"events"`
	// Queries are what the check asked the evidence; Result its count in
	// one line ("3 of 412 events after 14:21:03"); Matched the events
	// found and Coverage the events that could have shown one.
	Queries  []string `json:"queries"`
	Result   string   `json:"result"`
	Matched  int      `json:"matched"`
	Coverage int      `json:"coverage"`
	// Capabilities are the subject's capabilities of the layer, judged.
	Capabilities []capability.Verdict `json:"capabilities,omitempty"`
}

// Entry is a journal entry as the report lists it.
type Entry struct {
	Seq     int64             `json:"seq"`
	Time    time.Time         `json:"time"`
	Actor   journal.Actor     `json:"actor"`
	Type    journal.EntryType `json:"type"`
	Step    string            `json:"step,omitempty"`
	Event   string            `json:"event,omitempty"`
	Text    string            `json:"text,omitempty"`
	Details []string          `json:"details,omitempty"`
}

// OpenItem is something the case has not closed. Kind is "step", "layer",
// "finding" or "check".
type OpenItem struct {
	Kind string `json:"kind"`
	Ref  string `json:"ref"`
	Text string `json:"text"`
}

// attributionTable reads every session record in time order.
func attributionTable(ctx context.Context, st Reader) (Attribution, error) {
	c := st.Counts()
	a := Attribution{Sessions: []SessionRow{}, Via: sortedCounts(c.Fields["attributed_via"]),
		Unattributed: attribution.Unattributed(c), Ambiguous: c.Fields["attributed_via"][attribution.ViaAmbiguous]}
	open := map[string]int{}
	err := st.Each(ctx, evidence.Terms("kind", evidence.KindSessionStart, evidence.KindSessionEnd), func(ev evidence.Event) error {
		key := ev.Agent + "\x00" + ev.Session
		if ev.Kind == evidence.KindSessionStart {
			open[key] = len(a.Sessions)
			a.Sessions = append(a.Sessions, SessionRow{Agent: ev.Agent, Session: ev.Session, Run: ev.Run, Sandbox: ev.Sandbox,
				IP: ev.SrcIP, Container: ev.Container, Credentials: append([]string{}, ev.Credential...), Start: ev.Time.UTC(), StartEvent: ev.ID})
			return nil
		}
		if i, ok := open[key]; ok {
			a.Sessions[i].End, a.Sessions[i].EndStatus, a.Sessions[i].EndEvent = ev.Time.UTC(), ev.Status, ev.ID
			delete(open, key)
		}
		return nil
	})
	if err != nil {
		return a, fmt.Errorf("sessions: %w", err)
	}
	id, err := st.SessionIdentity(ctx)
	if err != nil {
		return a, err
	}
	a.Conflicts = []ConflictRow{}
	for _, c := range id.Conflicts() {
		a.Conflicts = append(a.Conflicts, ConflictRow{Key: c.Via + "=" + c.Value, Earlier: c.Earlier.Agent + " (" + c.Earlier.Session + ")",
			Later: c.Later.Agent + " (" + c.Later.Session + ")", From: c.Later.Start.UTC(), Active: c.EarlierActive.UTC()})
	}
	sort.SliceStable(a.Sessions, func(i, j int) bool { return a.Sessions[i].Agent < a.Sessions[j].Agent })
	return a, nil
}

// layerStatus runs each layer step's check, capabilities included, on the
// evidence as it is now: the containment line and the impact section are
// computed from the same checks. A journaled check that agrees is credited
// to who ran it; one that no longer agrees is named in the summary.
func layerStatus(ctx context.Context, ws *incident.Workspace, pb *playbook.Playbook, cs incident.Case, entries []journal.Entry, now time.Time) ([]LayerStatus, error) {
	last := lastChecks(entries)
	out := []LayerStatus{}
	refs := pb.LayerSteps()
	steps := make([]*playbook.Step, len(refs))
	for i, ref := range refs {
		steps[i] = ref.Step
	}
	results, err := ws.CheckSteps(ctx, steps, cs, now)
	if err != nil {
		return out, err
	}
	for i, s := range steps {
		r := results[i]
		l := LayerStatus{Layer: s.Layer, Title: s.Layer.Title(), Step: s.ID, StepTitle: s.Title,
			Status: r.Status, Summary: r.Summary(), Source: "report", At: now.UTC(),
			Events: capList(r.Events, maxReportIDs), Capabilities: r.Capabilities,
			Queries: append([]string{}, r.Queries...), Result: r.Detail, Matched: r.Matched, Coverage: r.Coverage}
		if e, ok := last[s.ID]; ok {
			var j incident.CheckResult
			if err := json.Unmarshal(e.Payload, &j); err == nil {
				if j.Status == r.Status {
					l.Source, l.By, l.At = "journal", e.Actor.Name, e.Time.UTC()
				} else {
					l.Summary += fmt.Sprintf(" — the journal's check by %s at %s said %s", e.Actor.Name, incident.Stamp(e.Time), j.Status)
				}
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// lastChecks is the last check_result entry of each step.
func lastChecks(entries []journal.Entry) map[string]journal.Entry {
	m := map[string]journal.Entry{}
	for _, e := range entries {
		if e.Type == journal.EntryCheckResult && e.Step != "" {
			m[e.Step] = e
		}
	}
	return m
}

// activity lists the journal's entries other than check results and
// evidence received: the responders' and the assistant's apart.
func activity(entries []journal.Entry) (actions, exchanges []Entry, checks int) {
	actions, exchanges = []Entry{}, []Entry{}
	for _, e := range entries {
		if e.Type == journal.EntryCheckResult {
			checks++
			continue
		}
		if e.Type == journal.EntryEvidenceReceived {
			continue // Evidence has these
		}
		re := Entry{Seq: e.Seq, Time: e.Time.UTC(), Actor: e.Actor, Type: e.Type, Step: e.Step, Event: e.Event, Text: e.Text}
		switch e.Type {
		case journal.EntryActionRun:
			re.Details = actionDetails(e.Payload)
		case journal.EntryAssistantExchange:
			re.Details = exchangeDetails(e.Payload)
		}
		if e.Type == journal.EntryAssistantExchange || e.Type == journal.EntryAssistantRefusal {
			exchanges = append(exchanges, re)
			continue
		}
		actions = append(actions, re)
	}
	return actions, exchanges, checks
}

// actionDetails are an action's commands with their exit codes.
func actionDetails(payload json.RawMessage) []string {
	var p incident.ActionPayload
	if json.Unmarshal(payload, &p) != nil {
		return nil
	}
	var out []string
	for _, r := range p.Runs {
		s := incident.CommandLine(r.Argv)
		switch {
		case r.DryRun:
			s += " (dry run, not run)"
		default:
			s += fmt.Sprintf(" → exit %d", r.ExitCode)
		}
		if r.Err != "" {
			s += ": " + r.Err
		}
		out = append(out, s)
	}
	if p.Error != "" {
		out = append(out, "error: "+p.Error)
	}
	return out
}

// uncontained is one open item per agent with findings of severity high or
// above whose containment the evidence does not show, saying why: it is
// not the case's subject, no containment time is recorded, or layers are
// still open.
func uncontained(findings []detect.Finding, cs incident.Case, layers []LayerStatus) []OpenItem {
	var agents []string
	serious := map[string][]string{}
	for _, f := range findings {
		if detect.SeverityRank(f.Severity) < detect.SeverityRank(detect.SeverityHigh) || cs.Assessment.AgentContained(f.Agent) {
			continue
		}
		who := f.Agent
		if who == "" {
			who = "(no agent)"
		}
		if serious[who] == nil {
			agents = append(agents, who)
		}
		serious[who] = append(serious[who], f.Detector)
	}
	var open []string
	for _, l := range layers {
		if l.Status != incident.CheckVerified {
			open = append(open, l.Title)
		}
	}
	var out []OpenItem
	for _, who := range agents {
		why := "containment is not verified: " + fmt.Sprintf("%d of %d kill-switch layers open (%s)", len(open), len(layers), strings.Join(open, ", "))
		switch {
		case !slices.Contains(cs.Subject, who):
			why = "it is not the case's subject (cordon subject names it)"
		case cs.ContainedAt.IsZero():
			why = "no kill time is recorded (mark the step that stops it done)"
		}
		out = append(out, OpenItem{"agent", who, fmt.Sprintf("%d finding(s) of severity high or above (%s); %s",
			len(serious[who]), strings.Join(serious[who], ", "), why)})
	}
	return out
}

// exchangeDetails are an assistant answer's claims, each with its verdict
// (UNVERIFIED with the ids the packet did not hold, or citing real events
// and whether they hold what it names): a report never passes off a
// model's uncited or unsupported claim as a finding.
func exchangeDetails(payload json.RawMessage) []string {
	var p incident.ExchangePayload
	if json.Unmarshal(payload, &p) != nil {
		return nil
	}
	var out []string
	if p.Question != "" {
		out = append(out, "asked: "+p.Question)
	}
	for _, c := range p.Answer.Claims {
		line := c.Verdict() + ": " + c.Text
		if len(c.EventIDs) > 0 {
			line += " [" + strings.Join(c.EventIDs, " ") + "]"
		}
		out = append(out, line)
	}
	if p.Error != "" {
		out = append(out, "error: "+p.Error)
	}
	return out
}

// openItems lists what the case has not closed: steps neither done nor
// skipped whose evidence check (when they have one) does not verify on
// the evidence now, layers not verified, and serious agents not
// contained. A step the evidence shows done is not open work.
func openItems(ctx context.Context, ws *incident.Workspace, pb *playbook.Playbook, s incident.CaseState, layers []LayerStatus, findings []detect.Finding, cs incident.Case, now time.Time) ([]OpenItem, error) {
	out := []OpenItem{}
	layerOf := map[string]LayerStatus{}
	for _, l := range layers {
		layerOf[l.Step] = l
	}
	for _, ref := range pb.Steps() {
		step := ref.Step
		st2 := s.Step(step.ID)
		if st2.Status == incident.StepDone || st2.Status == incident.StepSkipped {
			continue
		}
		if l, ok := layerOf[step.ID]; ok {
			if l.Status == incident.CheckVerified {
				continue
			}
		} else if step.Check != nil {
			rs, err := ws.CheckSteps(ctx, []*playbook.Step{step}, cs, now)
			if err != nil {
				return out, err
			}
			if rs[0].Status == incident.CheckVerified {
				continue
			}
		}
		if st2.Status == incident.StepStarted {
			out = append(out, OpenItem{"step", step.ID, fmt.Sprintf("%s: started by %s at %s, not done", step.Title, st2.By.Name, incident.Stamp(st2.At))})
			continue
		}
		out = append(out, OpenItem{"step", step.ID, step.Title + ": not started"})
	}
	for _, l := range layers {
		if l.Status != incident.CheckVerified {
			out = append(out, OpenItem{"layer", l.Step, fmt.Sprintf("%s: %s", l.Title, l.Summary)})
		}
	}
	return append(out, uncontained(findings, cs, layers)...), nil
}

// Intervention is a human's intervention the evidence records.
type Intervention struct {
	Time   time.Time `json:"time"`
	Agent  string    `json:"agent,omitempty"`
	Who    string    `json:"who,omitempty"`
	Text   string    `json:"text"`
	Event  string    `json:"event"`
	Origin string    `json:"origin,omitempty"`
}

// maxInterventions bounds the human_intervention records listed.
const maxInterventions = 200

// interventions reads the human_intervention records, oldest first.
func interventions(ctx context.Context, st Reader) ([]Intervention, error) {
	out := []Intervention{}
	h, err := st.Search(ctx, evidence.Request{Query: evidence.Term("kind", evidence.KindHumanIntervention), Sort: evidence.SortTime, Limit: maxInterventions})
	if err != nil {
		return out, fmt.Errorf("human interventions: %w", err)
	}
	for _, ev := range h.Events {
		out = append(out, Intervention{Time: ev.Time.UTC(), Agent: ev.Agent, Who: ev.User, Text: ev.Message, Event: ev.ID, Origin: ev.Origin})
	}
	return out, nil
}
