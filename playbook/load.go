package playbook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrPlaybook marks a playbook file that cannot be used; the Problems it
// comes with name the file, line and column.
var ErrPlaybook = errors.New("bad playbook")

// Problem is one thing wrong in a file cordon reads as data (a playbook,
// an evaluation suite), at a line and column.
type Problem struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Msg  string `json:"message"`
}

// Error renders file:line:col: message, the form editors jump to.
func (p Problem) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg)
}

// Problems is every problem found in one or more files, sorted by file and
// line; as an error it wraps ErrPlaybook.
type Problems []Problem

// Error lists the problems, one a line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap makes errors.Is(err, ErrPlaybook) hold.
func (ps Problems) Unwrap() error { return ErrPlaybook }

func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Load reads and lints one playbook file. A bad file gives Problems.
func Load(path string) (*Playbook, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("playbook: %w", err)
	}
	pb, probs := Parse(path, data)
	if len(probs) > 0 {
		return nil, Problems(probs)
	}
	return pb, nil
}

// LoadDir reads every .yaml and .yml file of a folder, one playbook each,
// in name order. Every problem of every file is reported, and two
// playbooks may not share an id.
func LoadDir(dir string) ([]*Playbook, error) {
	return loadFS(os.DirFS(dir), dir+string(filepath.Separator))
}

func loadFS(fsys fs.FS, prefix string) ([]*Playbook, error) {
	names, err := fs.Glob(fsys, "*.y*ml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*Playbook
	var probs []Problem
	seen := map[string]string{}
	for _, n := range names {
		if ext := filepath.Ext(n); ext != ".yaml" && ext != ".yml" {
			continue
		}
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("playbook: %w", err)
		}
		pb, ps := Parse(prefix+n, data)
		probs = append(probs, ps...)
		if pb == nil {
			continue
		}
		if first, ok := seen[pb.ID]; ok {
			probs = append(probs, Problem{prefix + n, 1, 1, fmt.Sprintf("playbook id %s is already defined at %s", pb.ID, first)})
			continue
		}
		seen[pb.ID] = pb.Origin
		out = append(out, pb)
	}
	if len(probs) > 0 {
		sortProblems(probs)
		return nil, Problems(probs)
	}
	return out, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse reads and lints one playbook. It reports every problem, sorted by
// line, and returns the playbook only when there is none.
func Parse(name string, data []byte) (*Playbook, []Problem) {
	l := &linter{file: name}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, []Problem{{name, 1, 1, "empty file: a playbook has id, title and phases"}}
		}
		return nil, []Problem{yamlProblem(name, err)}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		l.at(&extra, "a file holds one playbook; remove the second YAML document")
	case !errors.Is(err, io.EOF):
		l.probs = append(l.probs, yamlProblem(name, err))
	}
	if len(doc.Content) == 0 {
		return nil, []Problem{{name, 1, 1, "empty file: a playbook has id, title and phases"}}
	}
	pb := l.playbook(deref(doc.Content[0]))
	if len(l.probs) > 0 {
		sortProblems(l.probs)
		return nil, l.probs
	}
	return pb, nil
}

func yamlProblem(name string, err error) Problem {
	line, msg := 1, err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	return Problem{name, line, 1, "not YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// linter walks the YAML nodes of one file and collects problems.
type linter struct {
	file  string
	probs []Problem
}

func (l *linter) at(n *yaml.Node, format string, a ...any) {
	l.probs = append(l.probs, Problem{l.file, n.Line, n.Column, fmt.Sprintf(format, a...)})
}

// fields walks a mapping, calling set for each known key and reporting
// unknown ones; it returns the key nodes by name, for required-field
// checks.
func (l *linter) fields(n *yaml.Node, what string, known []string, set func(k, v *yaml.Node)) map[string]*yaml.Node {
	n = deref(n)
	keys := map[string]*yaml.Node{}
	if n.Kind != yaml.MappingNode {
		l.at(n, "%s is a mapping of %s", what, strings.Join(known, ", "))
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, dup := keys[k.Value]; dup {
			l.at(k, "%s: %s is given twice", what, k.Value)
			continue
		}
		keys[k.Value] = k
		if !contains(known, k.Value) {
			l.at(k, "unknown field %q in %s (want %s)", k.Value, what, strings.Join(known, ", "))
			continue
		}
		set(k, deref(v))
	}
	return keys
}

// deref follows a YAML alias (*name) to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// nonEmpty reports a field that is present but has no value.
func (l *linter) nonEmpty(keys map[string]*yaml.Node, name, value string) {
	if k := keys[name]; k != nil && strings.TrimSpace(value) == "" {
		l.at(k, "%s is empty", name)
	}
}

// require reports the required keys a mapping lacks, at the mapping.
func (l *linter) require(n *yaml.Node, what string, keys map[string]*yaml.Node, names ...string) {
	if keys == nil {
		return
	}
	for _, name := range names {
		if keys[name] == nil {
			l.at(n, "%s has no %s", what, name)
		}
	}
}

// str reads a scalar string; a list or mapping is a problem.
func (l *linter) str(v *yaml.Node, field string) string {
	if v.Kind != yaml.ScalarNode {
		l.at(v, "%s: want a string", field)
		return ""
	}
	if v.Tag == "!!null" {
		return ""
	}
	return v.Value
}

// list reads a sequence (or one scalar, as a list of one) of strings.
func (l *linter) list(v *yaml.Node, field string) []*yaml.Node {
	switch v.Kind {
	case yaml.SequenceNode:
		items := make([]*yaml.Node, len(v.Content))
		for i, item := range v.Content {
			items[i] = deref(item)
		}
		return items
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil
		}
		return []*yaml.Node{v}
	}
	l.at(v, "%s: want a list", field)
	return nil
}

var (
	playbookID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	stepID     = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)*$`)
	actionName = regexp.MustCompile(`^[a-z0-9-]+$`)
)

func (l *linter) playbook(n *yaml.Node) *Playbook {
	pb := &Playbook{Origin: fmt.Sprintf("%s:%d", l.file, n.Line)}
	var phasesNode *yaml.Node
	keys := l.fields(n, "the playbook", []string{"id", "title", "description", "phases"}, func(k, v *yaml.Node) {
		switch k.Value {
		case "id":
			pb.ID = l.str(v, "id")
			if pb.ID != "" && !playbookID.MatchString(pb.ID) {
				l.at(v, "id %q: want lowercase letters, digits and dashes", pb.ID)
			}
		case "title":
			pb.Title = l.text(v, "title")
		case "description":
			pb.Description = l.text(v, "description")
		case "phases":
			phasesNode = v
		}
	})
	if keys == nil {
		return pb
	}
	l.require(n, "the playbook", keys, "id", "title", "phases")
	l.nonEmpty(keys, "id", pb.ID)
	l.nonEmpty(keys, "title", pb.Title)
	if phasesNode == nil {
		return pb
	}
	if phasesNode.Kind != yaml.SequenceNode || len(phasesNode.Content) == 0 {
		l.at(phasesNode, "phases: want a list of phases, each with id, title and steps")
		return pb
	}
	phaseAt := map[string]int{}
	stepAt := map[string]int{}
	for _, pn := range phasesNode.Content {
		ph := l.phase(pn, stepAt)
		if ph.ID != "" {
			if first, ok := phaseAt[ph.ID]; ok {
				l.at(pn, "phase id %s is already used at line %d", ph.ID, first)
			} else {
				phaseAt[ph.ID] = pn.Line
			}
		}
		pb.Phases = append(pb.Phases, ph)
	}
	return pb
}

func (l *linter) phase(n *yaml.Node, stepAt map[string]int) Phase {
	ph := Phase{Line: n.Line}
	var stepsNode *yaml.Node
	keys := l.fields(n, "a phase", []string{"id", "title", "steps"}, func(k, v *yaml.Node) {
		switch k.Value {
		case "id":
			ph.ID = l.str(v, "id")
			if ph.ID != "" && !playbookID.MatchString(ph.ID) {
				l.at(v, "phase id %q: want lowercase letters, digits and dashes", ph.ID)
			}
		case "title":
			ph.Title = l.text(v, "title")
		case "steps":
			stepsNode = v
		}
	})
	l.require(n, "phase "+ph.ID, keys, "id", "title", "steps")
	l.nonEmpty(keys, "id", ph.ID)
	l.nonEmpty(keys, "title", ph.Title)
	if stepsNode == nil {
		return ph
	}
	if stepsNode.Kind != yaml.SequenceNode || len(stepsNode.Content) == 0 {
		l.at(stepsNode, "steps: want a list of steps, each with id and title")
		return ph
	}
	for _, sn := range stepsNode.Content {
		st := l.step(sn)
		if st.ID != "" {
			if first, ok := stepAt[st.ID]; ok {
				l.at(sn, "step id %s is already used at line %d", st.ID, first)
			} else {
				stepAt[st.ID] = sn.Line
			}
		}
		ph.Steps = append(ph.Steps, st)
	}
	return ph
}

var stepFields = []string{"id", "title", "layer", "guidance", "checklist", "queries", "check", "actions", "sets", "done_when"}

func (l *linter) step(n *yaml.Node) Step {
	st := Step{Line: n.Line}
	keys := l.fields(n, "a step", stepFields, func(k, v *yaml.Node) {
		switch k.Value {
		case "id":
			st.ID = l.str(v, "id")
			if st.ID != "" && !stepID.MatchString(st.ID) {
				l.at(v, "step id %q: want lowercase words of letters, digits and dashes, joined by dots (contain.credentials)", st.ID)
			}
		case "title":
			st.Title = l.text(v, "title")
		case "layer":
			st.Layer = Layer(l.str(v, "layer"))
			if !st.Layer.Valid() {
				l.at(v, "layer %q is not one of %s", st.Layer, layerNames())
			}
		case "guidance":
			st.Guidance = l.text(v, "guidance")
		case "done_when":
			st.DoneWhen = l.text(v, "done_when")
		case "checklist":
			for _, item := range l.list(v, "checklist") {
				st.Checklist = append(st.Checklist, l.text(item, "a checklist item"))
			}
		case "queries":
			for _, q := range l.list(v, "queries") {
				st.Queries = append(st.Queries, l.savedQuery(q))
			}
		case "check":
			st.Check = l.check(v)
		case "actions":
			for _, a := range l.list(v, "actions") {
				name := l.str(a, "an action")
				if !actionName.MatchString(name) {
					l.at(a, "action %q: want the name of a command template in cordon.yaml (lowercase letters, digits, dashes)", name)
				}
				st.Actions = append(st.Actions, name)
			}
		case "sets":
			st.Sets = l.str(v, "sets")
			if !IsTimeVariable(st.Sets) {
				l.at(v, "sets %q: want a time variable (%s)", st.Sets, strings.Join(TimeVariables(), ", "))
			}
		}
	})
	l.require(n, "step "+st.ID, keys, "id", "title")
	l.nonEmpty(keys, "id", st.ID)
	l.nonEmpty(keys, "title", st.Title)
	return st
}

func (l *linter) savedQuery(n *yaml.Node) SavedQuery {
	if n.Kind == yaml.ScalarNode {
		q := l.query(n, "query")
		return SavedQuery{Title: q, Query: q}
	}
	var sq SavedQuery
	keys := l.fields(n, "a saved query", []string{"title", "query"}, func(k, v *yaml.Node) {
		switch k.Value {
		case "title":
			sq.Title = l.text(v, "title")
		case "query":
			sq.Query = l.query(v, "query")
		}
	})
	l.require(n, "a saved query", keys, "title", "query")
	l.nonEmpty(keys, "title", sq.Title)
	return sq
}

func (l *linter) check(n *yaml.Node) *Check {
	c := &Check{}
	keys := l.fields(n, "a check", []string{"title", "expect", "after", "queries", "coverage"}, func(k, v *yaml.Node) {
		switch k.Value {
		case "title":
			c.Title = l.text(v, "title")
		case "expect":
			c.Expect = Expect(l.str(v, "expect"))
			if c.Expect != ExpectNone && c.Expect != ExpectSome {
				l.at(v, "expect %q: want none or some", c.Expect)
			}
		case "after":
			c.After = l.str(v, "after")
			if !IsTimeVariable(c.After) {
				l.at(v, "after %q: want a time variable (%s)", c.After, strings.Join(TimeVariables(), ", "))
			}
		case "queries":
			for _, q := range l.list(v, "queries") {
				c.Queries = append(c.Queries, l.query(q, "a check query"))
			}
			if len(c.Queries) == 0 {
				l.at(v, "a check needs at least one query")
			}
		case "coverage":
			for _, q := range l.list(v, "coverage") {
				c.Coverage = append(c.Coverage, l.query(q, "a coverage query"))
			}
		}
	})
	if keys == nil {
		return c
	}
	l.require(n, "a check", keys, "title", "expect", "queries")
	l.nonEmpty(keys, "title", c.Title)
	return c
}

func layerNames() string {
	names := make([]string, 0, 7)
	for _, x := range Layers() {
		names = append(names, string(x))
	}
	return strings.Join(names, ", ")
}
