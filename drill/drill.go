package drill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
)

// stateFile records, in the drill's workspace, which script it runs.
const stateFile = "drill.json"

// scenarioActor is who the journal names for what the scenario does.
var scenarioActor = journal.Actor{Name: "scenario", Via: journal.ViaDrill}

// State is what a drill workspace says about its drill.
type State struct {
	Script   string    `json:"script"` // absolute path of the drill script
	Scenario string    `json:"scenario"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
}

// Drill is a tabletop exercise running over its own workspace: evidence
// reaches the index only as scenario time passes it.
type Drill struct {
	Script *Script
	WS     *incident.Workspace
	Clock  *Clock
	State  State

	replay *Replay

	mu      sync.Mutex // one Advance at a time
	injects []Inject   // in order of time
	at      []time.Time

	// smu guards what a console reads while an Advance ingests: the
	// injects fired and the records released (and ingested) so far.
	smu      sync.Mutex
	fired    int
	released int
	withheld int

	// pending: records were released to the staging copies but their
	// ingest has not succeeded yet (it failed, or a resumed drill has not
	// run one): the next Advance ingests even if it releases nothing.
	pending bool
}

// ErrDrillExists: the output folder already holds a drill.
var ErrDrillExists = errors.New("drill already run here")

// Start prepares a drill in dir (a new folder): the workspace, the staged
// evidence, the clock (paused at the scenario's start) and a journal that
// stamps entries in scenario time. wall is the real clock (nil: time.Now).
func Start(ctx context.Context, s *Script, dir string, wall func() time.Time) (*Drill, error) {
	if _, err := os.Stat(filepath.Join(dir, stateFile)); err == nil {
		return nil, fmt.Errorf("%w: %s (debrief it with cordon drill debrief %s, or choose another --out)", ErrDrillExists, dir, dir)
	}
	ws, err := incident.Create(dir)
	if err != nil {
		return nil, err
	}
	d, err := start(ctx, s, ws, wall)
	if err != nil {
		ws.Close()
		return nil, err
	}
	return d, nil
}

func start(ctx context.Context, s *Script, ws *incident.Workspace, wall func() time.Time) (*Drill, error) {
	d, err := prepare(s, ws, wall)
	if err != nil {
		return nil, err
	}
	b, _ := json.MarshalIndent(d.State, "", "  ")
	if err := os.WriteFile(filepath.Join(ws.Dir, stateFile), append(b, '\n'), 0o600); err != nil {
		return nil, err
	}
	text := fmt.Sprintf("drill %s starts at %s, speed ×%g", s.Scenario, d.State.Start.Format(time.RFC3339), d.Clock.Speed())
	if _, err := ws.RecordDrill(ctx, journal.Entry{Actor: scenarioActor, Type: journal.EntryDrillStarted, Text: text}, time.Time{}); err != nil {
		return nil, err
	}
	return d, nil
}

// prepare builds the drill of script s over ws: the replay plan, the
// clock (paused at the start) and the injects in time order; the journal
// stamps entries in scenario time from here on.
func prepare(s *Script, ws *incident.Workspace, wall func() time.Time) (*Drill, error) {
	r, err := NewReplay(s, filepath.Join(ws.Dir, "evidence"))
	if err != nil {
		return nil, err
	}
	begin := s.Start.Resolve(r.First())
	if begin.IsZero() {
		begin = r.First()
	}
	end := s.End.Resolve(begin)
	if end.IsZero() {
		end = r.Last()
	}
	if !end.After(begin) {
		return nil, fmt.Errorf("%w: the scenario ends (%s) before it starts (%s)", ErrScript, end.Format(time.RFC3339), begin.Format(time.RFC3339))
	}
	abs, _ := filepath.Abs(filepath.Join(s.Dir, "drill.yaml"))
	d := &Drill{
		Script: s, WS: ws, replay: r,
		Clock: NewClock(begin, end, s.Speed, wall),
		State: State{Script: abs, Scenario: s.Scenario, Start: begin, End: end},
	}
	d.injects = append([]Inject(nil), s.Inject...)
	sort.SliceStable(d.injects, func(i, j int) bool { return d.injects[i].At.Resolve(begin).Before(d.injects[j].At.Resolve(begin)) })
	for _, in := range d.injects {
		d.at = append(d.at, in.At.Resolve(begin))
	}
	ws.SetClock(d.Clock.Now)
	ws.Rehearse()
	return d, nil
}

// Resume reopens a drill a console quit, where it stopped: the evidence
// already staged stays released (and indexed, resumed from its
// checkpoints), the injects already journaled stay fired, and the clock
// stands paused at the scenario time of the journal's last entry.
func Resume(ctx context.Context, dir string, wall func() time.Time) (*Drill, error) {
	st, err := ReadState(dir)
	if err != nil {
		return nil, err
	}
	s, err := Load(st.Script)
	if err != nil {
		return nil, err
	}
	ws, err := incident.Create(dir)
	if err != nil {
		return nil, err
	}
	d, err := prepare(s, ws, wall)
	if err == nil {
		err = d.resume(ctx)
	}
	if err != nil {
		ws.Close()
		return nil, err
	}
	return d, nil
}

func (d *Drill) resume(ctx context.Context) error {
	entries, err := d.WS.JournalEntries()
	if err != nil {
		return err
	}
	at := d.State.Start
	fired := 0
	for _, e := range entries {
		// entries are in scenario time; one past the end was stamped by
		// a wall clock and says nothing of where the drill stood
		if e.Time.After(at) && !e.Time.After(d.State.End) {
			at = e.Time
		}
		if e.Type == journal.EntryDrillInject {
			fired++
		}
	}
	released, staged, err := d.replay.skipStaged()
	if err != nil {
		return err
	}
	if staged.After(at) {
		at = staged // the team has seen the evidence up to there
	}
	d.fired, d.released, d.withheld = min(fired, len(d.injects)), released, d.replay.Withheld
	d.pending = released > 0 // a quit may have cut the last ingest short
	d.Clock.Jump(at)
	text := fmt.Sprintf("drill %s resumed at %s", d.Script.Scenario, at.Format(time.RFC3339))
	_, err = d.WS.RecordDrill(ctx, journal.Entry{Actor: scenarioActor, Type: journal.EntryDrillStarted, Text: text}, time.Time{})
	return err
}

// Close records the evidence released since its last receipt and
// releases the workspace.
func (d *Drill) Close() error {
	ferr := d.WS.FlushReceipts(context.Background(), scenarioActor)
	if err := d.WS.Close(); err != nil {
		return err
	}
	return ferr
}

// Advance releases the evidence scenario time has reached, ingests it, and
// fires the injects now due (journaled). It returns those injects.
func (d *Drill) Advance(ctx context.Context) ([]Inject, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.Clock.Now()
	n, err := d.replay.Release(now)
	if err != nil {
		return nil, err
	}
	if n > 0 || d.pending {
		d.pending = true
		if _, err := d.WS.Ingest(ctx, d.replay.Files(), incident.IngestOptions{Actor: scenarioActor, Growing: true}); err != nil {
			return nil, err
		}
		d.pending = false
	}
	d.smu.Lock()
	d.released += n // counted once searchable, so a console refreshing on it finds them
	d.withheld = d.replay.Withheld
	next := d.fired
	d.smu.Unlock()
	var fired []Inject
	for next < len(d.injects) && !d.at[next].After(now) {
		in := d.injects[next]
		next++
		d.smu.Lock()
		d.fired = next
		d.smu.Unlock()
		fired = append(fired, in)
		text := in.Text
		if text == "" {
			text = "evidence released: " + strings.Join(in.Evidence, ", ")
		}
		// stamped when it was due, not when the clock was next read
		if _, err := d.WS.RecordDrill(ctx, journal.Entry{Actor: scenarioActor, Type: journal.EntryDrillInject, Text: text}, d.at[next-1]); err != nil {
			return fired, err
		}
	}
	return fired, nil
}

// NextInject is the next inject to fire and when (ok false: none left).
func (d *Drill) NextInject() (Inject, time.Time, bool) {
	d.smu.Lock()
	defer d.smu.Unlock()
	if d.fired >= len(d.injects) {
		return Inject{}, time.Time{}, false
	}
	return d.injects[d.fired], d.at[d.fired], true
}

// Fired are the injects fired so far, in order: every console sharing
// the drill shows the last one, whichever console's Advance fired it.
func (d *Drill) Fired() []Inject {
	d.smu.Lock()
	defer d.smu.Unlock()
	return append([]Inject(nil), d.injects[:d.fired]...)
}

// Released counts the records released to the team so far: it grows only,
// so a console compares it to what it last saw to know the index grew.
func (d *Drill) Released() int {
	d.smu.Lock()
	defer d.smu.Unlock()
	return d.released
}

// Withheld counts the records simulated gaps kept from the team.
func (d *Drill) Withheld() int {
	d.smu.Lock()
	defer d.smu.Unlock()
	return d.withheld
}

// answerPayload is a team's answer as the journal keeps it.
type answerPayload struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// Answer journals the team's answer to a question, at the scenario time.
// The last answer to a question is the one scored.
func (d *Drill) Answer(ctx context.Context, actor journal.Actor, question, answer string) (journal.Entry, error) {
	if _, ok := d.Script.Question(question); !ok {
		return journal.Entry{}, fmt.Errorf("no question %q in this drill", question)
	}
	b, _ := json.Marshal(answerPayload{Question: question, Answer: answer})
	return d.WS.RecordDrill(ctx, journal.Entry{Actor: actor, Type: journal.EntryDrillAnswer, Text: question + ": " + answer, Payload: b}, time.Time{})
}
