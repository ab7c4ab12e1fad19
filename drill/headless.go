package drill

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"gopkg.in/yaml.v3"
)

// Answers is what a team does in a headless drill, each at a scenario
// time: answers to questions, the subject they name, the steps they mark.
// YAML or JSON.
type Answers struct {
	Team    string                 `yaml:"team"`
	Answers map[string]TimedAnswer `yaml:"answers"`
	Subject *struct {
		Agents []string `yaml:"agents"`
		At     Time     `yaml:"at"`
	} `yaml:"subject"`
	Steps []struct {
		Step        string `yaml:"step"`
		Status      string `yaml:"status"` // started, done, skipped
		At          Time   `yaml:"at"`
		ContainedAt Time   `yaml:"contained_at"`
	} `yaml:"steps"`
}

// TimedAnswer is an answer given at a scenario time.
type TimedAnswer struct {
	Answer string `yaml:"answer"`
	At     Time   `yaml:"at"`
}

// LoadAnswers reads a team's answers file.
func LoadAnswers(path string) (*Answers, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var a Answers
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &a, nil
}

// action is one thing the team does, at its time.
type action struct {
	at  time.Time
	run func(ctx context.Context, d *Drill, who journal.Actor) error
}

func (a *Answers) actions(s *Script, start time.Time) ([]action, error) {
	var out []action
	for id, ans := range a.Answers {
		if _, ok := s.Question(id); !ok {
			return nil, fmt.Errorf("answers: no question %q in drill %s", id, s.Scenario)
		}
		id, text := id, ans.Answer
		out = append(out, action{ans.At.Resolve(start), func(ctx context.Context, d *Drill, who journal.Actor) error {
			_, err := d.Answer(ctx, who, id, text)
			return err
		}})
	}
	if sub := a.Subject; sub != nil {
		out = append(out, action{sub.At.Resolve(start), func(ctx context.Context, d *Drill, who journal.Actor) error {
			_, err := d.WS.SetSubject(ctx, who, sub.Agents)
			return err
		}})
	}
	statuses := map[string]incident.StepStatus{"started": incident.StepStarted, "done": incident.StepDone, "skipped": incident.StepSkipped}
	for _, st := range a.Steps {
		status, ok := statuses[st.Status]
		if !ok {
			return nil, fmt.Errorf("answers: step %s: status %q: want started, done or skipped", st.Step, st.Status)
		}
		st := st
		out = append(out, action{st.At.Resolve(start), func(ctx context.Context, d *Drill, who journal.Actor) error {
			_, err := d.WS.SetStep(ctx, who, st.Step, status, st.ContainedAt.Resolve(start), "")
			return err
		}})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out, nil
}

// RunHeadless runs a drill without a terminal at full speed: scenario time
// jumps from one inject or team action to the next, releasing the evidence
// in between, and the debrief is written to dir as debrief.md and
// debrief.json. The workspace stays in dir/workspace for a later look.
func RunHeadless(ctx context.Context, s *Script, a *Answers, dir string) (*Debrief, error) {
	d, err := Start(ctx, s, filepath.Join(dir, "workspace"), nil)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	acts, err := a.actions(s, d.State.Start)
	if err != nil {
		return nil, err
	}
	team := a.Team
	if team == "" {
		team = "team"
	}
	who := journal.Actor{Name: team, Via: journal.ViaDrill}
	stops := make([]time.Time, 0, len(acts)+len(d.injects)+1)
	for _, act := range acts {
		stops = append(stops, act.at)
	}
	stops = append(stops, d.at...)
	stops = append(stops, d.State.End)
	sort.Slice(stops, func(i, j int) bool { return stops[i].Before(stops[j]) })
	next := 0
	for _, t := range stops {
		d.Clock.Jump(t)
		if _, err := d.Advance(ctx); err != nil {
			return nil, err
		}
		for next < len(acts) && !acts[next].at.After(d.Clock.Now()) {
			if err := acts[next].run(ctx, d, who); err != nil {
				return nil, fmt.Errorf("at %s: %w", acts[next].at.Format("15:04:05"), err)
			}
			next++
		}
	}
	deb, err := BuildDebrief(ctx, d.WS, s, d.State)
	if err != nil {
		return nil, err
	}
	return deb, WriteDebrief(deb, dir)
}

// WriteDebrief writes debrief.md and debrief.json into dir.
func WriteDebrief(deb *Debrief, dir string) error {
	var md strings.Builder
	if err := deb.WriteMarkdown(&md); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "debrief.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}
	b, err := json.MarshalIndent(deb, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "debrief.json"), append(b, '\n'), 0o644)
}
