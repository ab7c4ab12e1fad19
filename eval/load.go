package eval

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"gopkg.in/yaml.v3"
)

// ErrSuite marks a suite file that cannot be used; the Problems it comes
// with name the file, line and column.
var ErrSuite = errors.New("bad suite")

//go:embed builtin.yaml
var builtinSuite []byte

// BuiltinFile is how the built-in suite's problems and origins name it.
const BuiltinFile = "eval/builtin.yaml"

// Builtin is the suite cordon ships: every signal and kill-switch layer
// cordon knows, each call a fresh copy.
func Builtin() (*Suite, error) { return Parse(BuiltinFile, builtinSuite) }

// maxSuiteBytes bounds a suite file: a suite is pages, not megabytes.
const maxSuiteBytes = 4 << 20

// Load reads a suite file.
func Load(path string) (*Suite, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSuiteBytes+1))
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	if len(b) > maxSuiteBytes {
		return nil, Problems{{File: path, Line: 1, Col: 1, Msg: fmt.Sprintf("over %d bytes", maxSuiteBytes)}}
	}
	return Parse(path, b)
}

var (
	testID    = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	yamlError = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
)

// reader gathers a file's problems while it reads it.
type reader struct {
	file      string
	problems  Problems
	detectors []string
}

func (r *reader) fail(n *yaml.Node, format string, a ...any) {
	r.problems = append(r.problems, Problem{File: r.file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, a...)})
}

// Parse reads a suite; every problem is reported with its line and
// column, and no suite is returned while there is one.
func Parse(file string, data []byte) (*Suite, error) {
	r := &reader{file: file}
	rules, err := detect.Builtin()
	if err != nil {
		return nil, fmt.Errorf("built-in rules: %w", err)
	}
	for _, rule := range rules {
		r.detectors = append(r.detectors, rule.ID)
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		line, msg := 1, err.Error()
		if m := yamlError.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		if errors.Is(err, io.EOF) {
			msg = "empty file: a suite is a mapping of suite, title, tests"
		}
		return nil, Problems{{File: file, Line: line, Col: 1, Msg: "not YAML: " + msg}}
	}
	s := &Suite{File: file}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		r.fail(root, "a suite is a mapping of suite, title, tests")
		return nil, r.problems
	}
	var tests *yaml.Node
	r.fields(root, []string{"suite", "title", "tests"}, func(k, v *yaml.Node) {
		switch k.Value {
		case "suite":
			s.Name = r.str(v)
		case "title":
			s.Title = r.str(v)
		case "tests":
			tests = v
		}
	})
	if s.Name == "" {
		r.fail(root, "the suite has no name (suite: NAME)")
	} else if !testID.MatchString(s.Name) {
		r.fail(root, "suite %q: want lowercase letters, digits and dashes", s.Name)
	}
	switch {
	case tests == nil:
		r.fail(root, "the suite has no tests")
	case tests.Kind != yaml.SequenceNode || len(tests.Content) == 0:
		r.fail(tests, "tests is a list of tests")
	default:
		seen := map[string]int{}
		for _, n := range tests.Content {
			t, ok := r.test(n)
			if !ok {
				continue
			}
			if first, dup := seen[t.ID]; dup {
				r.fail(n, "test id %s is already used at line %d", t.ID, first)
				continue
			}
			seen[t.ID] = t.Line
			s.Tests = append(s.Tests, t)
		}
	}
	if len(r.problems) > 0 {
		return nil, r.problems
	}
	return s, nil
}

// fields calls each for every key of a mapping, refusing unknown ones.
func (r *reader) fields(n *yaml.Node, known []string, each func(k, v *yaml.Node)) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(known, k.Value) {
			r.fail(k, "unknown field %q%s (want %s)", k.Value, nearest(k.Value, known), strings.Join(known, ", "))
			continue
		}
		each(k, v)
	}
}

func (r *reader) str(v *yaml.Node) string {
	if v.Kind != yaml.ScalarNode {
		r.fail(v, "want a string")
		return ""
	}
	return v.Value
}

func (r *reader) duration(v *yaml.Node) time.Duration {
	d, err := time.ParseDuration(r.str(v))
	if err != nil || d <= 0 {
		r.fail(v, "%q: want a positive duration such as 60s or 10m", v.Value)
		return 0
	}
	return d
}

var testFields = []string{"id", "behaviour", "rung", "evidence", "min_events", "window", "gains", "controls"}

func (r *reader) test(n *yaml.Node) (Test, bool) {
	before := len(r.problems)
	t := Test{Line: n.Line, Col: n.Column}
	if n.Kind != yaml.MappingNode {
		r.fail(n, "a test is a mapping of %s", strings.Join(testFields, ", "))
		return t, false
	}
	var controls, evidenceKey *yaml.Node
	r.fields(n, testFields, func(k, v *yaml.Node) {
		switch k.Value {
		case "id":
			t.ID = r.str(v)
		case "behaviour":
			t.Behaviour = r.str(v)
		case "rung":
			t.Rung = Rung(r.str(v))
			if t.Rung.Level() == 0 {
				r.fail(v, "rung %q%s is not one of %s", v.Value, nearest(v.Value, rungNames()), strings.Join(rungNames(), ", "))
			}
		case "evidence":
			evidenceKey = k
			r.evidence(v, &t)
		case "min_events":
			m, err := strconv.Atoi(r.str(v))
			if err != nil || m < 1 {
				r.fail(v, "min_events %q: want a whole number of 1 or more", v.Value)
			}
			t.MinEvents = m
		case "window":
			t.Window = r.duration(v)
		case "gains":
			t.Gains = r.gain(v)
		case "controls":
			controls = v
		}
	})
	switch {
	case !testID.MatchString(t.ID):
		r.fail(n, "test id %q: want lowercase letters, digits and dashes", t.ID)
	case t.Behaviour == "":
		r.fail(n, "test %s has no behaviour (what the agent tries, in a sentence)", t.ID)
	case t.Rung == "":
		r.fail(n, "test %s has no rung (one of %s)", t.ID, strings.Join(rungNames(), ", "))
	case evidenceKey == nil && t.Gains == nil:
		r.fail(n, "test %s says neither evidence (queries of the attempt) nor gains (a capability acquired)", t.ID)
	case evidenceKey != nil && t.Gains != nil:
		r.fail(n, "test %s says both evidence and gains: keep one", t.ID)
	case (t.MinEvents > 0 || t.Window > 0) && t.Gains != nil:
		r.fail(n, "test %s: min_events and window belong with evidence", t.ID)
	case t.Window > 0 && t.MinEvents == 0:
		r.fail(n, "test %s: window needs min_events (how many events within it)", t.ID)
	}
	if controls == nil || controls.Kind != yaml.SequenceNode || len(controls.Content) == 0 {
		r.fail(n, "test %s has no controls (a list of refuse, report, detect, stop)", t.ID)
	} else {
		for _, c := range controls.Content {
			if ctl, ok := r.control(c); ok {
				t.Controls = append(t.Controls, ctl)
			}
		}
	}
	return t, len(r.problems) == before
}

func (r *reader) evidence(v *yaml.Node, t *Test) {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	for _, q := range items {
		if text := r.query(q); text != "" {
			t.Evidence = append(t.Evidence, text)
		}
	}
}

// query reads one query, "" when it does not parse.
func (r *reader) query(q *yaml.Node) string {
	text := r.str(q)
	if strings.TrimSpace(text) == "" {
		r.fail(q, "an empty query (to select every event, say so: *)")
		return ""
	}
	parsed, err := evidence.Parse(text)
	if err == nil {
		_, err = evidence.Compile(parsed)
	}
	if err != nil {
		r.fail(q, "query %q: %s", text, strings.TrimPrefix(err.Error(), evidence.ErrQuery.Error()+": "))
		return ""
	}
	return text
}

func (r *reader) gain(v *yaml.Node) *Gain {
	g := &Gain{}
	if v.Kind != yaml.MappingNode {
		r.fail(v, "gains is a mapping of kind, owner, match")
		return g
	}
	kinds := make([]string, 0, len(capability.Kinds()))
	for _, k := range capability.Kinds() {
		kinds = append(kinds, string(k))
	}
	r.fields(v, []string{"kind", "owner", "match"}, func(k, v *yaml.Node) {
		switch k.Value {
		case "kind":
			g.Kind = capability.Kind(r.str(v))
			if !slices.Contains(kinds, string(g.Kind)) {
				r.fail(v, "kind %q%s is not one of %s", v.Value, nearest(v.Value, kinds), strings.Join(kinds, ", "))
			}
		case "owner":
			if g.Owner = r.str(v); g.Owner != "other" {
				r.fail(v, "owner %q: the only owner is other (another session's)", v.Value)
			}
		case "match":
			g.Match = r.str(v)
			re, err := regexp.Compile(g.Match)
			if err != nil {
				r.fail(v, "match: %v", err)
			}
			g.match = re
		}
	})
	if g.Kind == "" {
		r.fail(v, "gains needs kind (one of %s)", strings.Join(kinds, ", "))
	}
	return g
}

func (r *reader) control(n *yaml.Node) (Control, bool) {
	before := len(r.problems)
	c := Control{Line: n.Line, Col: n.Column}
	if n.Kind != yaml.MappingNode {
		r.fail(n, "a control is a mapping: refuse: gateway|proxy, report: sensor|falco|tetragon, detect: DETECTOR, stop: LAYER; within: for detect and stop")
		return c, false
	}
	var within *yaml.Node
	var query *yaml.Node
	r.fields(n, append(ControlKinds(), "within", "query"), func(k, v *yaml.Node) {
		if k.Value == "query" {
			query = v
			c.Query = r.query(v)
			return
		}
		if k.Value == "within" {
			within = v
			c.Within = r.duration(v)
			return
		}
		if c.Kind != "" {
			r.fail(k, "one control says one of %s; %s is already %s", strings.Join(ControlKinds(), ", "), c.Kind, c.By)
			return
		}
		c.Kind, c.By = k.Value, r.str(v)
		var known []string
		switch c.Kind {
		case ControlRefuse:
			known = refusers
		case ControlReport:
			known = reporters
		case ControlDetect:
			known = r.detectors
		case ControlStop:
			known = capability.Layers()
		}
		if !slices.Contains(known, c.By) {
			r.fail(v, "%s %q%s: want one of %s", c.Kind, c.By, nearest(c.By, known), strings.Join(known, ", "))
		}
	})
	switch {
	case c.Kind == "":
		r.fail(n, "a control says one of %s", strings.Join(ControlKinds(), ", "))
	case (c.Kind == ControlDetect || c.Kind == ControlStop) && within == nil:
		r.fail(n, "%s %s needs within: how soon it must come (60s, 10m)", c.Kind, c.By)
	case (c.Kind == ControlRefuse || c.Kind == ControlReport) && within != nil:
		r.fail(within, "within belongs to detect and stop")
	case (c.Kind == ControlDetect || c.Kind == ControlStop) && query != nil:
		r.fail(query, "query belongs to refuse and report")
	}
	return c, len(r.problems) == before
}

func rungNames() []string {
	var out []string
	for _, r := range Rungs() {
		out = append(out, string(r))
	}
	return out
}

// nearest is " (did you mean X?)" for the known name one or two edits
// from typed, or "".
func nearest(typed string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := evidence.EditDistance(strings.ToLower(typed), k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" || best == typed {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}
