package drill

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/eval"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/playbook"
)

// Debrief scores a drill from its journal and its workspace: the answers,
// how fast the team detected, attributed and contained, the playbook steps
// and the findings.
type Debrief struct {
	Scenario  string           `json:"scenario"`
	Title     string           `json:"title,omitempty"`
	Start     time.Time        `json:"start"`
	End       time.Time        `json:"end"`
	Questions []QuestionResult `json:"questions"`
	Score     Score            `json:"score"`
	Onset     time.Time        `json:"onset"`
	Detect    *Milestone       `json:"time_to_detect,omitempty"`
	Attribute *Milestone       `json:"time_to_attribute,omitempty"`
	Contain   *Milestone       `json:"time_to_contain,omitempty"`
	// Called is the team's call that the agent was stopped, and what the
	// case's Assessment said of it then and says now: speed is credited
	// (Contain) only when every capability was in fact stopped.
	Called   *ContainCall    `json:"contain_called,omitempty"`
	Steps    StepsResult     `json:"steps"`
	Findings []FindingResult `json:"findings"`
	Journal  []JournalLine   `json:"journal"`
	// Controls is the scorecard of the suite the script declares, on the
	// evidence the drill released: how the sandbox's controls did, beside
	// how the team did (nil when the script declares none).
	Controls *eval.Scorecard `json:"controls,omitempty"`
}

// QuestionResult is one question, the team's last answer and its verdict.
type QuestionResult struct {
	ID       string    `json:"id"`
	Text     string    `json:"text"`
	Kind     string    `json:"kind"`
	Expected []string  `json:"expected,omitempty"`
	Given    string    `json:"given,omitempty"`
	By       string    `json:"by,omitempty"`
	At       time.Time `json:"at,omitzero"`
	Verdict  string    `json:"verdict"`
	Why      string    `json:"why,omitempty"`
	Evidence []string  `json:"evidence,omitempty"`
}

// Score counts verdicts.
type Score struct {
	Right      int `json:"right"`
	Wrong      int `json:"wrong"`
	Unanswered int `json:"unanswered"`
	ToJudge    int `json:"to_judge"`
	Total      int `json:"total"`
}

// Milestone is when the team reached a point, in scenario time, and how
// long after the onset of the incident.
type Milestone struct {
	At    time.Time     `json:"at"`
	After time.Duration `json:"after"`
	How   string        `json:"how"`
}

// ContainCall is the team marking the agent stopped: when, the kill time it
// gave, and the Assessment then — on the evidence released by the call —
// and on all the evidence the drill released.
type ContainCall struct {
	At   time.Time `json:"at"`
	Kill time.Time `json:"kill"`
	// StateThen is the case's state when they called it; OpenThen the
	// layers not stopped then, each with the Assessment's line.
	StateThen capability.State `json:"state_then"`
	OpenThen  []string         `json:"open_then"`
	// Contained and ContainedAt are the Assessment on all the evidence.
	Contained   bool      `json:"contained"`
	ContainedAt time.Time `json:"contained_at,omitzero"`
	Headline    string    `json:"headline"`
}

// StepsResult is the playbook as the team worked it.
type StepsResult struct {
	Done    []string `json:"done"`
	Skipped []string `json:"skipped"`
	// Missed are expected steps neither done nor skipped.
	Missed []string `json:"missed"`
}

// FindingResult is an expected finding and whether the detectors raised
// it on the evidence the drill released.
type FindingResult struct {
	ExpectedFinding
	Surfaced bool      `json:"surfaced"`
	Start    time.Time `json:"start,omitzero"`
}

// JournalLine is a journal entry as the debrief quotes it.
type JournalLine struct {
	Seq   int64     `json:"seq"`
	Time  time.Time `json:"time"`
	Actor string    `json:"actor"`
	Type  string    `json:"type"`
	Text  string    `json:"text"`
}

// ReadState reads a drill workspace's drill.json.
func ReadState(dir string) (State, error) {
	var st State
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return st, fmt.Errorf("%s is not a drill workspace: %w", dir, err)
	}
	return st, json.Unmarshal(b, &st)
}

// DebriefDir opens a drill workspace read-only and debriefs it.
func DebriefDir(ctx context.Context, dir string) (*Debrief, error) {
	st, err := ReadState(dir)
	if err != nil {
		return nil, err
	}
	s, err := Load(st.Script)
	if err != nil {
		return nil, err
	}
	ws, err := incident.Open(dir)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	return BuildDebrief(ctx, ws, s, st)
}

// BuildDebrief scores the drill st of script s run in ws.
func BuildDebrief(ctx context.Context, ws *incident.Workspace, s *Script, st State) (*Debrief, error) {
	entries, err := ws.JournalEntries()
	if err != nil {
		return nil, err
	}
	found, err := ws.CachedFindings(ctx)
	if err != nil {
		return nil, err
	}
	d := &Debrief{Scenario: s.Scenario, Title: s.Title, Start: st.Start, End: st.End, Onset: st.Start}
	d.questions(s, entries, st.Start)
	d.findings(s, found)
	d.milestones(s, entries, incident.FoldJournal(entries))
	if err := d.containment(ctx, ws, entries); err != nil {
		return nil, err
	}
	d.steps(s, incident.FoldJournal(entries))
	if err := d.controls(ctx, ws, s); err != nil {
		return nil, fmt.Errorf("suite %s: %w", s.Suite, err)
	}
	for _, e := range entries {
		d.Journal = append(d.Journal, JournalLine{Seq: e.Seq, Time: e.Time, Actor: e.Actor.Name, Type: string(e.Type), Text: e.Text})
	}
	return d, nil
}

// questions scores the last answer to each question.
func (d *Debrief) questions(s *Script, entries []journal.Entry, day time.Time) {
	last := map[string]journal.Entry{}
	given := map[string]string{}
	for _, e := range entries {
		var p answerPayload
		if e.Type == journal.EntryDrillAnswer && json.Unmarshal(e.Payload, &p) == nil {
			last[p.Question], given[p.Question] = e, p.Answer
		}
	}
	for _, q := range s.Quest {
		r := QuestionResult{ID: q.ID, Text: q.Text, Kind: q.Kind, Expected: q.Answer, Given: given[q.ID], Evidence: q.Evidence}
		if e, ok := last[q.ID]; ok {
			r.By, r.At = e.Actor.Name, e.Time
		}
		r.Verdict, r.Why = Check(q, r.Given, day)
		switch r.Verdict {
		case Right:
			d.Score.Right++
		case Wrong:
			d.Score.Wrong++
		case Unanswered:
			d.Score.Unanswered++
		default:
			d.Score.ToJudge++
		}
		d.Score.Total++
		d.Questions = append(d.Questions, r)
	}
}

// findings marks which expected findings the detectors raised, and dates
// the onset: the start of the earliest of them.
func (d *Debrief) findings(s *Script, found []detect.Finding) {
	for _, want := range s.Expect.Findings {
		r := FindingResult{ExpectedFinding: want}
		for _, f := range found { // every match: severity sorts them, not time
			if f.Agent == want.Agent && f.Detector == want.Detector && (!r.Surfaced || f.Start.Before(r.Start)) {
				r.Surfaced, r.Start = true, f.Start
			}
		}
		if r.Surfaced && r.Start.After(d.Start) && (d.Onset.Equal(d.Start) || r.Start.Before(d.Onset)) {
			d.Onset = r.Start
		}
		d.Findings = append(d.Findings, r)
	}
}

// milestones finds when the team detected, attributed and contained.
func (d *Debrief) milestones(s *Script, entries []journal.Entry, cs incident.CaseState) {
	culprits := map[string]bool{}
	for _, f := range s.Expect.Findings {
		culprits[strings.ToLower(f.Agent)] = true
	}
	mark := func(m **Milestone, at time.Time, how string) {
		if *m == nil || at.Before((*m).At) {
			*m = &Milestone{At: at, After: at.Sub(d.Onset), How: how}
		}
	}
	for _, e := range entries {
		switch e.Type {
		case journal.EntrySubjectSet:
			mark(&d.Detect, e.Time, "named a subject: "+e.Text)
			for _, a := range strings.Split(e.Text, ", ") {
				if culprits[strings.ToLower(a)] {
					mark(&d.Attribute, e.Time, "named "+a+" as the subject")
				}
			}
		case journal.EntryStepDone:
			if strings.HasPrefix(e.Step, "detect.") {
				mark(&d.Detect, e.Time, "step "+e.Step+" done")
			}
		}
	}
	for _, q := range d.Questions {
		// Only naming an expected culprit attributes: a right answer about
		// a benign agent (whose lines these are) is not an attribution.
		if q.Kind == KindAgent && q.Verdict == Right && culprits[normalize(KindAgent, q.Given)] {
			mark(&d.Attribute, q.At, "answered "+q.ID+" right")
			mark(&d.Detect, q.At, "answered "+q.ID+" right")
		}
	}
}

// containment judges the team's call that the agent was stopped with the
// case's one Assessment: as of the call (what was still live then), and on
// everything released. Time to contain is credited only when the
// Assessment has every capability stopped, at the latest stop — never the
// time the team called it.
func (d *Debrief) containment(ctx context.Context, ws *incident.Workspace, entries []journal.Entry) error {
	cs := incident.FoldJournal(entries)
	kill, ok := cs.Times["contained_at"]
	if !ok {
		return nil
	}
	call := ContainCall{At: kill, Kill: kill}
	if st := cs.Step("contain.stop"); st.Status == incident.StepDone {
		call.At = st.At
	}
	then, err := ws.AssessmentAsOf(ctx, call.At)
	if err != nil {
		return err
	}
	call.StateThen = then.State
	for _, l := range then.Layers {
		if l.State != capability.Stopped {
			call.OpenThen = append(call.OpenThen, playbook.Layer(l.Layer).Title()+" "+string(l.State)+": "+l.Line)
		}
	}
	now, err := ws.Assessment(ctx)
	if err != nil {
		return err
	}
	call.Contained, call.ContainedAt, call.Headline = now.Contained, now.ContainedAt, incident.Headline(now)
	d.Called = &call
	if now.Contained {
		d.Contain = &Milestone{At: now.ContainedAt, After: now.ContainedAt.Sub(d.Onset),
			How: fmt.Sprintf("every capability stopped (the team called it at %s)", call.At.UTC().Format("15:04:05"))}
	}
	return nil
}

// steps lists the playbook steps done and skipped, and the expected ones
// missed.
func (d *Debrief) steps(s *Script, cs incident.CaseState) {
	d.Steps = StepsResult{Done: []string{}, Skipped: []string{}, Missed: []string{}}
	for id, st := range cs.Steps {
		switch st.Status {
		case incident.StepDone:
			d.Steps.Done = append(d.Steps.Done, id)
		case incident.StepSkipped:
			d.Steps.Skipped = append(d.Steps.Skipped, id)
		}
	}
	slices.Sort(d.Steps.Done)
	slices.Sort(d.Steps.Skipped)
	for _, id := range s.Expect.Steps {
		if !slices.Contains(d.Steps.Done, id) && !slices.Contains(d.Steps.Skipped, id) {
			d.Steps.Missed = append(d.Steps.Missed, id)
		}
	}
}
