package detect

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"gopkg.in/yaml.v3"
)

// ErrRule marks a rule file that cannot be used; the RuleErrors it wraps
// name the file and line.
var ErrRule = errors.New("bad rule")

// RuleError is one problem in a rule file, at a line.
type RuleError struct {
	File string
	Line int
	Msg  string
	// Cause is the error Msg tells, when a caller may act on its kind
	// (a *ChangedError: a query whose meaning changed with the syntax).
	Cause error
}

// Error renders file:line: message.
func (e *RuleError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Unwrap makes errors.Is(err, ErrRule) hold, and errors.As find Cause.
func (e *RuleError) Unwrap() []error {
	if e.Cause != nil {
		return []error{ErrRule, e.Cause}
	}
	return []error{ErrRule}
}

//go:embed rules/*.yaml
var builtinRules embed.FS

// Builtin returns the rules cordon ships (detect/rules/*.yaml), each call
// a fresh copy.
func Builtin() ([]Rule, error) {
	sub, err := fs.Sub(builtinRules, "rules")
	if err != nil {
		return nil, err
	}
	return loadFS(sub, "detect/rules/")
}

// Load reads rules from a file or from every .yaml/.yml file of a folder.
func Load(path string) ([]Rule, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	if !st.IsDir() {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("rules: %w", err)
		}
		return Parse(path, data)
	}
	return loadFS(os.DirFS(path), path+string(filepath.Separator))
}

func loadFS(fsys fs.FS, prefix string) ([]Rule, error) {
	names, err := fs.Glob(fsys, "*.y*ml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var rules []Rule
	var errs []error
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		rs, err := Parse(prefix+n, data)
		errs = append(errs, err)
		rules = append(rules, rs...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return rules, Unique(rules)
}

// Unique reports rules that share an id.
func Unique(rules []Rule) error {
	seen := map[string]string{}
	for _, r := range rules {
		if first, ok := seen[r.ID]; ok {
			return fmt.Errorf("%w: %s: rule id %s is already defined at %s", ErrRule, r.Origin, r.ID, first)
		}
		seen[r.ID] = r.Origin
	}
	return nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse reads the rules of one file: one rule per YAML document. Every
// problem is reported with its line; none of the file's rules is returned
// if any is bad.
func Parse(name string, data []byte) ([]Rule, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var rules []Rule
	var errs []error
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line, msg := 0, err.Error()
			if m := yamlLine.FindStringSubmatch(msg); m != nil {
				line, _ = strconv.Atoi(m[1])
				msg = m[2]
			}
			errs = append(errs, &RuleError{File: name, Line: line, Msg: "not YAML: " + msg})
			break
		}
		if len(doc.Content) == 0 {
			continue
		}
		r, err := parseRule(name, doc.Content[0])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rules = append(rules, r)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(rules) == 0 {
		return nil, &RuleError{File: name, Line: 1, Msg: "no rule in file"}
	}
	return rules, Unique(rules)
}

// parseRule reads one rule mapping, then validates it; a validation error
// is placed at the line of the field it is about.
func parseRule(file string, n *yaml.Node) (Rule, error) {
	fail := func(n *yaml.Node, format string, a ...any) error {
		return &RuleError{File: file, Line: n.Line, Msg: fmt.Sprintf(format, a...)}
	}
	if n.Kind != yaml.MappingNode {
		return Rule{}, fail(n, "a rule is a mapping of id, title, severity, phase, explain, query, correlation")
	}
	r := Rule{Origin: fmt.Sprintf("%s:%d", file, n.Line)}
	lines := map[string]*yaml.Node{}
	var errs []error
	str := func(v *yaml.Node, dst *string) {
		if v.Kind != yaml.ScalarNode {
			errs = append(errs, fail(v, "want a string"))
			return
		}
		*dst = v.Value
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		lines[k.Value] = k
		switch k.Value {
		case "id":
			str(v, &r.ID)
		case "title":
			str(v, &r.Title)
		case "severity":
			str(v, &r.Severity)
		case "phase":
			str(v, &r.Phase)
		case "description":
			str(v, &r.Description)
		case "explain":
			str(v, &r.Explain)
		case "query":
			switch v.Kind {
			case yaml.ScalarNode:
				r.Query = []string{v.Value}
			case yaml.SequenceNode:
				for _, q := range v.Content {
					var one string
					str(q, &one)
					if _, err := compileRuleQuery(one); err != nil {
						errs = append(errs, fail(q, "%v", err))
					}
					r.Query = append(r.Query, one)
				}
			default:
				errs = append(errs, fail(v, "query is a query or a list of them"))
			}
		case "tags":
			if v.Kind != yaml.SequenceNode {
				errs = append(errs, fail(v, "tags is a list (attack.t1053.003)"))
				continue
			}
			for _, t := range v.Content {
				var one string
				str(t, &one)
				r.Tags = append(r.Tags, one)
			}
		case "correlation":
			errs = append(errs, parseCorrelation(file, v, &r.Correlation, lines))
		default:
			errs = append(errs, fail(k, "unknown field %q (want id, title, severity, phase, description, tags, explain, query, correlation)", k.Value))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Rule{}, err
	}
	if err := r.Validate(); err != nil {
		at := n
		var fe *fieldError
		if errors.As(err, &fe) {
			switch {
			case lines[fe.field] != nil:
				at = lines[fe.field]
			case correlationField(fe.field) && lines["correlation"] != nil:
				at = lines["correlation"]
			}
		}
		re := &RuleError{File: file, Line: at.Line, Msg: err.Error()}
		var ce *ChangedError
		if errors.As(err, &ce) {
			re.Cause = ce
		}
		return Rule{}, re
	}
	return r, nil
}
