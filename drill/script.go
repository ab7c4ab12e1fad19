package drill

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// ErrScript: a drill script does not parse or says something impossible.
var ErrScript = errors.New("bad drill script")

// Script is a tabletop drill: the evidence of a sample incident replayed in
// scenario time, with injects, questions and what a good team finds.
type Script struct {
	Scenario string   `yaml:"scenario"`
	Title    string   `yaml:"title"`
	Briefing string   `yaml:"briefing"` // Markdown, read to the team at the start
	Evidence []string `yaml:"evidence"` // files relative to the script
	// Start and End bound scenario time (default: the evidence's first and
	// last events). Speed is scenario seconds per wall second (default 60).
	Start  Time       `yaml:"start"`
	End    Time       `yaml:"end"`
	Speed  float64    `yaml:"speed"`
	Inject []Inject   `yaml:"injects"`
	Quest  []Question `yaml:"questions"`
	Expect Expected   `yaml:"expect"`
	// Suite is the containment suite the scenario exercises: "builtin"
	// or a suite file relative to the script (docs/eval.md); the debrief
	// scores the sandbox's controls with it beside the team's score.
	Suite string `yaml:"suite"`

	// Dir is the folder the script was read from; paths are relative to it.
	Dir string `yaml:"-"`
}

// Inject is something that happens at a scenario time: a message to the
// team, evidence released only then, or a simulated sensor gap.
type Inject struct {
	At       Time     `yaml:"at"`
	Text     string   `yaml:"text"`
	Evidence []string `yaml:"evidence"` // held back until At
	Gap      *Gap     `yaml:"gap"`
}

// Gap withholds the records of the evidence files matching Files (a path
// suffix, e.g. "sensor/falco.jsonl", or a folder "sensor/") logged in
// [From, To): the sensor was down, those events never arrive.
type Gap struct {
	Files string `yaml:"files"`
	From  Time   `yaml:"from"`
	To    Time   `yaml:"to"`
}

// Answer kinds a question can expect.
const (
	KindAgent      = "agent"
	KindEvent      = "event"
	KindCredential = "credential"
	KindTime       = "time"
	KindHost       = "host"
	KindText       = "text" // judged by the facilitator
)

// Question is asked of the team; Answer is what the evidence supports.
type Question struct {
	ID   string `yaml:"id"`
	Text string `yaml:"text"`
	Kind string `yaml:"kind"`
	// Answer holds the expected values: every one must be named (for a
	// credential list) or any one matches (agent, event, host), see Check.
	Answer    []string `yaml:"answer"`
	Tolerance string   `yaml:"tolerance"` // for time answers, e.g. 2m
	// Evidence are event ids that support the answer, for the debrief.
	Evidence []string `yaml:"evidence"`
}

// Expected is what a good team surfaces and completes.
type Expected struct {
	Findings []ExpectedFinding `yaml:"findings"`
	Steps    []string          `yaml:"steps"`
}

// ExpectedFinding is a detector's finding about an agent.
type ExpectedFinding struct {
	Agent    string `yaml:"agent"`
	Detector string `yaml:"detector"`
}

// Time is a scenario time in a script: RFC 3339, a time of day on the
// start's date ("14:21:03"), or an offset from the start ("+61m").
type Time struct {
	Raw string
	abs time.Time
	off time.Duration
	tod bool
}

// UnmarshalYAML keeps the text; Resolve turns it into a time.
func (t *Time) UnmarshalYAML(n *yaml.Node) error {
	t.Raw = strings.TrimSpace(n.Value)
	if t.Raw == "" {
		return nil
	}
	if strings.HasPrefix(t.Raw, "+") {
		d, err := time.ParseDuration(t.Raw[1:])
		if err != nil {
			return fmt.Errorf("line %d: time %q: an offset is +DURATION, e.g. +90m", n.Line, t.Raw)
		}
		t.off = d
		return nil
	}
	if v, err := time.Parse(time.RFC3339Nano, t.Raw); err == nil {
		t.abs = v.UTC()
		return nil
	}
	if v, err := time.Parse("15:04:05", t.Raw); err == nil {
		t.abs, t.tod = v, true
		return nil
	}
	return fmt.Errorf("line %d: time %q: want RFC 3339, HH:MM:SS or +DURATION", n.Line, t.Raw)
}

// IsZero reports an absent time.
func (t Time) IsZero() bool { return t.Raw == "" }

// Resolve places t in the scenario that starts at start.
func (t Time) Resolve(start time.Time) time.Time {
	switch {
	case t.Raw == "":
		return time.Time{}
	case t.tod:
		y, m, d := start.UTC().Date()
		return time.Date(y, m, d, t.abs.Hour(), t.abs.Minute(), t.abs.Second(), 0, time.UTC)
	case !t.abs.IsZero():
		return t.abs
	}
	return start.Add(t.off)
}

var questionID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Load reads a drill script: a drill.yaml, or a folder holding one.
func Load(path string) (*Script, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		path = filepath.Join(path, "drill.yaml")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrScript, err)
	}
	s, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrScript, path, err)
	}
	s.Dir = filepath.Dir(path)
	if _, err := s.LoadSuite(); err != nil {
		return nil, fmt.Errorf("%w: %s: suite: %v", ErrScript, path, err)
	}
	for _, f := range s.allEvidence() {
		if _, err := os.Stat(s.Path(f)); err != nil {
			return nil, fmt.Errorf("%w: %s: evidence %s: %v", ErrScript, path, f, err)
		}
	}
	return s, nil
}

// Parse decodes and checks a script.
func Parse(b []byte) (*Script, error) {
	var s Script
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty script")
		}
		return nil, err
	}
	if s.Speed == 0 {
		s.Speed = 60
	}
	return &s, s.validate()
}

func (s *Script) validate() error {
	switch {
	case s.Scenario == "":
		return errors.New("scenario: a name is required")
	case len(s.Evidence) == 0:
		return errors.New("evidence: at least one file is required")
	case s.Speed < 0:
		return errors.New("speed: must be positive")
	}
	named := map[string]bool{}
	for _, f := range s.allEvidence() {
		k := filepath.ToSlash(filepath.Clean(f))
		if named[k] {
			return fmt.Errorf("evidence %s: named twice (a held-back file is listed only under its inject)", f)
		}
		named[k] = true
	}
	for i, in := range s.Inject {
		if in.At.IsZero() {
			return fmt.Errorf("injects[%d]: at is required", i)
		}
		if in.Text == "" && len(in.Evidence) == 0 && in.Gap == nil {
			return fmt.Errorf("injects[%d] (%s): says nothing, releases nothing and opens no gap", i, in.At.Raw)
		}
		if g := in.Gap; g != nil && (g.Files == "" || g.From.IsZero() || g.To.IsZero()) {
			return fmt.Errorf("injects[%d] (%s): a gap needs files, from and to", i, in.At.Raw)
		}
	}
	seen := map[string]bool{}
	for i, q := range s.Quest {
		switch {
		case !questionID.MatchString(q.ID):
			return fmt.Errorf("questions[%d]: id %q: lowercase letters, digits and dashes", i, q.ID)
		case seen[q.ID]:
			return fmt.Errorf("questions[%d]: id %q used twice", i, q.ID)
		case q.Text == "":
			return fmt.Errorf("question %s: text is required", q.ID)
		case !validKind(q.Kind):
			return fmt.Errorf("question %s: kind %q: want agent, event, credential, time, host or text", q.ID, q.Kind)
		case len(q.Answer) == 0 && q.Kind != KindText:
			return fmt.Errorf("question %s: answer is required for a %s question", q.ID, q.Kind)
		}
		seen[q.ID] = true
		if q.Kind == KindTime {
			for _, a := range q.Answer {
				if _, err := time.Parse(time.RFC3339Nano, a); err != nil {
					return fmt.Errorf("question %s: answer %q is not an RFC 3339 time", q.ID, a)
				}
			}
			if q.Tolerance != "" {
				if _, err := time.ParseDuration(q.Tolerance); err != nil {
					return fmt.Errorf("question %s: tolerance %q is not a duration", q.ID, q.Tolerance)
				}
			}
		}
	}
	return nil
}

func validKind(k string) bool {
	switch k {
	case KindAgent, KindEvent, KindCredential, KindTime, KindHost, KindText:
		return true
	}
	return false
}

// Path resolves a file named in the script.
func (s *Script) Path(f string) string {
	if filepath.IsAbs(f) {
		return f
	}
	return filepath.Join(s.Dir, f)
}

// allEvidence lists every evidence file: those released from the start and
// those injects hold back.
func (s *Script) allEvidence() []string {
	out := append([]string(nil), s.Evidence...)
	for _, in := range s.Inject {
		out = append(out, in.Evidence...)
	}
	return out
}

// Question finds a question by id.
func (s *Script) Question(id string) (Question, bool) {
	for _, q := range s.Quest {
		if q.ID == id {
			return q, true
		}
	}
	return Question{}, false
}
