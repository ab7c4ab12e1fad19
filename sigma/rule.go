package sigma

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// Rule is one Sigma document as read: a detection rule (Detection set) or
// a correlation rule (Correlation set), before any pipeline applies.
type Rule struct {
	File           string
	Line, Col      int
	Title          string
	ID             string
	Name           string
	Status         string
	Description    string
	Level          string
	Tags           []string
	FalsePositives []string
	Logsource      Logsource
	Detection      *Detection
	Correlation    *Correlation
}

// Logsource is the events a rule is written for.
type Logsource struct {
	Category, Product, Service string
	node                       *yaml.Node
}

// String renders "category=proxy product=linux".
func (l Logsource) String() string {
	var parts []string
	for _, kv := range [][2]string{{"category", l.Category}, {"product", l.Product}, {"service", l.Service}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, " ")
}

// ref is how correlation rules name the rule: its name, else its id.
func (r *Rule) ref() string {
	if r.Name != "" {
		return r.Name
	}
	return r.ID
}

// label is how refusals name the rule.
func (r *Rule) label() string {
	if r.Title != "" {
		return r.Title
	}
	return r.ID
}

// Parse reads every document of a Sigma file. A document that cannot be
// run is a Refusal in the errors returned; the others are returned.
func Parse(file string, data []byte) ([]*Rule, []*Refusal) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var rules []*Rule
	var refused []*Refusal
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			refused = append(refused, &Refusal{File: file, Line: 1, Col: 1, Reason: "not YAML: " + err.Error()})
			break
		}
		if len(doc.Content) == 0 {
			continue
		}
		r, ref := parseDoc(file, doc.Content[0])
		if ref != nil {
			refused = append(refused, ref)
			continue
		}
		rules = append(rules, r)
	}
	return rules, refused
}

func parseDoc(file string, n *yaml.Node) (*Rule, *Refusal) {
	f := &refuser{file: file}
	if n.Kind != yaml.MappingNode {
		return nil, f.at(n, "a Sigma rule is a YAML mapping")
	}
	r := &Rule{File: file, Line: n.Line, Col: n.Column}
	var det, corr, logsrc *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "title":
			r.Title = v.Value
			f.rule = r.Title
		case "id":
			r.ID = strings.ToLower(v.Value)
		case "name":
			r.Name = v.Value
		case "status":
			r.Status = v.Value
		case "description":
			r.Description = v.Value
		case "level":
			r.Level = v.Value
		case "tags":
			r.Tags = scalars(v)
		case "falsepositives":
			r.FalsePositives = scalars(v)
		case "logsource":
			logsrc = v
		case "detection":
			det = v
		case "correlation":
			corr = v
		case "generate":
			// read with the correlation below
		case "action":
			return nil, f.at(k, "action %q: meta rules of the old correlation format are not supported (use a correlation: section)", v.Value)
		default:
			// author, date, references, fields and custom attributes
			// carry no detection logic
		}
	}
	if r.Title == "" {
		return nil, f.at(n, "rule has no title (the specification makes it mandatory)")
	}
	switch {
	case det != nil && corr != nil:
		return nil, f.at(corr, "a document is either a detection rule or a correlation rule, not both")
	case det != nil:
		if logsrc == nil {
			return nil, f.at(n, "detection rule has no logsource")
		}
		ls, ref := parseLogsource(f, logsrc)
		if ref != nil {
			return nil, ref
		}
		r.Logsource = ls
		d, ref := parseDetection(f, det)
		if ref != nil {
			return nil, ref
		}
		r.Detection = d
	case corr != nil:
		c, ref := parseCorrelation(f, n, corr)
		if ref != nil {
			return nil, ref
		}
		r.Correlation = c
	default:
		return nil, f.at(n, "rule has neither detection nor correlation")
	}
	if _, ok := severity(r.Level); !ok {
		return nil, f.at(valueOf(n, "level"), "level %q is not one of informational, low, medium, high, critical", r.Level)
	}
	return r, nil
}

func parseLogsource(f *refuser, n *yaml.Node) (Logsource, *Refusal) {
	if n.Kind != yaml.MappingNode {
		return Logsource{}, f.at(n, "logsource is a mapping of category, product, service")
	}
	ls := Logsource{node: n}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "category":
			ls.Category = strings.ToLower(v.Value)
		case "product":
			ls.Product = strings.ToLower(v.Value)
		case "service":
			ls.Service = strings.ToLower(v.Value)
		}
	}
	return ls, nil
}

// severity maps a Sigma level onto cordon's severities; no level is
// medium, as pySigma backends default it.
func severity(level string) (string, bool) {
	switch strings.ToLower(level) {
	case "informational":
		return "info", true
	case "low", "medium", "high", "critical":
		return strings.ToLower(level), true
	case "":
		return "medium", true
	}
	return "", false
}

// scalars reads a scalar or a list of scalars.
func scalars(n *yaml.Node) []string {
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for _, c := range n.Content {
		if c.Kind == yaml.ScalarNode {
			out = append(out, c.Value)
		}
	}
	return out
}

// valueOf is the value node of key in mapping n (n itself when absent).
func valueOf(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return n
}
