package sigma

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"gopkg.in/yaml.v3"
)

// Exported is one cordon rule written as Sigma: a detection rule, or
// detection rules and the correlation rule over them, in one file.
type Exported struct {
	RuleID string
	// File is the file name the rule is written to: <id>.yml.
	File string
	YAML []byte
	// Logsource is the Sigma log source the detection rules name.
	Logsource string
}

// NotExported is a rule Sigma cannot express, with the reason.
type NotExported struct {
	RuleID, Origin, Reason string
}

// sigmaDoc is one Sigma document, its keys in the specification's order.
type sigmaDoc struct {
	Title       string            `yaml:"title"`
	ID          string            `yaml:"id"`
	Name        string            `yaml:"name,omitempty"`
	Status      string            `yaml:"status"`
	Description string            `yaml:"description,omitempty"`
	Author      string            `yaml:"author"`
	Tags        []string          `yaml:"tags,omitempty"`
	Logsource   map[string]string `yaml:"logsource,omitempty"`
	Detection   map[string]any    `yaml:"detection,omitempty"`
	Correlation *sigmaCorrelation `yaml:"correlation,omitempty"`
	Level       string            `yaml:"level"`
}

type sigmaCorrelation struct {
	Type      string         `yaml:"type"`
	Rules     []string       `yaml:"rules"`
	GroupBy   []string       `yaml:"group-by"`
	Timespan  string         `yaml:"timespan"`
	Condition map[string]any `yaml:"condition,omitempty"`
}

// Export writes rules as Sigma rules, mapping cordon's fields back to the
// Sigma names the pipeline (nil: Builtin) gives them where a rule's events
// are one Sigma log source's, and under logsource product: cordon with
// cordon's own field names otherwise. A rule Sigma cannot express is
// returned in the second list with the reason, never dropped.
func Export(rules []detect.Rule, p *Pipeline) ([]Exported, []NotExported, error) {
	if p == nil {
		var err error
		if p, err = Builtin(); err != nil {
			return nil, nil, err
		}
	}
	var out []Exported
	var not []NotExported
	for i := range rules {
		r := &rules[i]
		ex, err := exportRule(r, p)
		if err != nil {
			not = append(not, NotExported{RuleID: r.ID, Origin: r.Origin, Reason: err.Error()})
			continue
		}
		out = append(out, ex)
	}
	return out, not, nil
}

func exportRule(r *detect.Rule, p *Pipeline) (Exported, error) {
	c := r.Correlation
	if r.Filter != nil {
		return Exported{}, fmt.Errorf("the rule was compiled from another language (a Sigma rule is exported as its own file already)")
	}
	for _, s := range c.Steps {
		if s.Rule != nil {
			// only a Sigma chain names another correlation, and may carry
			// no filter of its own when it names correlations alone
			return Exported{}, fmt.Errorf("the rule counts or sequences another correlation's findings, a Sigma chain (a Sigma rule is exported as its own file already)")
		}
	}
	groupBy := c.GroupBy
	if groupBy == "" {
		groupBy = "agent"
	}
	span, err := sigmaTimespan(c.Window)
	if err != nil {
		return Exported{}, err
	}
	if c.Gap != 0 && c.Gap != c.Window {
		return Exported{}, fmt.Errorf("gap %s differs from the window: Sigma has no episode gap", c.Gap)
	}
	var queries [][]string // per detection rule, its queries (or-ed)
	var names []string
	typ := ""
	switch c.Type {
	case detect.EventCount, detect.ValueCount, detect.ValueSum, detect.ValueAvg, detect.ValuePercentile, detect.ValueMedian:
		queries, names, typ = [][]string{r.Query}, []string{r.ID + "-events"}, c.Type
	case detect.OrderedSequence, detect.Temporal:
		if c.Type == detect.OrderedSequence && !defaultCondition(c.Condition, 1) {
			return Exported{}, fmt.Errorf("a condition on an ordered sequence: Sigma's temporal_ordered takes none")
		}
		for _, s := range c.Steps {
			if s.Filter != nil {
				return Exported{}, fmt.Errorf("step %q carries an in-memory filter", s.Name)
			}
			queries = append(queries, []string{s.Query})
			names = append(names, r.ID+"-"+stepSlug(s.Name))
		}
		typ = map[string]string{detect.OrderedSequence: "temporal_ordered", detect.Temporal: "temporal"}[c.Type]
	case detect.Rate:
		return Exported{}, fmt.Errorf("correlation rate is written in Go (docs/rules.md): it judges a window against the agent's own baseline and its peers', which Sigma cannot say")
	default:
		return Exported{}, fmt.Errorf("correlation %s is written in Go (docs/rules.md): it compares events with session grants or with each other field by field, which Sigma cannot say", c.Type)
	}
	level := r.Severity
	if level == detect.SeverityInfo {
		level = "informational"
	}
	var docs []sigmaDoc
	var sources []string
	var ls Logsource
	for i, qs := range queries {
		det, l, err := exportDetection(qs, p)
		if err != nil {
			return Exported{}, err
		}
		if i > 0 && l != ls {
			// a correlation's rules must map group-by alike: keep them
			// under one log source
			if det, l, err = exportDetectionAs(qs, p, cordonLogsource); err != nil {
				return Exported{}, err
			}
			if ls != cordonLogsource {
				return Exported{}, fmt.Errorf("the steps' events are different Sigma log sources")
			}
		}
		ls = l
		title := r.Title
		if len(queries) > 1 {
			title = r.Title + ": " + c.Steps[i].Name
		}
		docs = append(docs, sigmaDoc{Title: title, ID: uuidFor(names[i]), Name: names[i], Status: "experimental",
			Description: detectionDescription(r, i), Author: "cordon (exported from " + r.ID + ")",
			Tags: r.Tags, Logsource: ls.mapping(), Detection: det, Level: level})
		sources = append(sources, ls.String())
	}
	gb, err := sigmaFieldFor(groupBy, ls, p)
	if err != nil {
		return Exported{}, fmt.Errorf("group_by: %w", err)
	}
	corr := &sigmaCorrelation{Type: typ, Rules: names, GroupBy: []string{gb}, Timespan: span}
	if typ == "event_count" || fieldType(typ) || typ == "temporal" && !defaultCondition(c.Condition, float64(len(c.Steps))) {
		corr.Condition = conditionMap(c.Condition)
		if len(corr.Condition) == 0 {
			return Exported{}, fmt.Errorf("%s needs a condition", typ)
		}
	}
	if fieldType(typ) {
		f, err := sigmaFieldFor(c.Field, ls, p)
		if err != nil {
			return Exported{}, fmt.Errorf("field: %w", err)
		}
		corr.Condition["field"] = f
	}
	if typ == detect.ValuePercentile {
		corr.Condition["percentile"] = c.Percentile
	}
	docs = append(docs, sigmaDoc{Title: r.Title, ID: uuidFor(r.ID), Name: r.ID, Status: "experimental",
		Description: strings.TrimSpace(r.Description), Author: "cordon (exported from " + r.ID + ")",
		Tags: r.Tags, Correlation: corr, Level: level})
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# cordon rule %s (%s), exported as Sigma.\n", r.ID, r.Origin)
	for _, d := range docs {
		buf.WriteString("---\n")
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(d); err != nil {
			return Exported{}, err
		}
		enc.Close()
	}
	return Exported{RuleID: r.ID, File: r.ID + ".yml", YAML: buf.Bytes(), Logsource: sources[0]}, nil
}

func detectionDescription(r *detect.Rule, i int) string {
	if len(r.Correlation.Steps) > 0 {
		return fmt.Sprintf("Step %d of cordon rule %s: %s.", i+1, r.ID, r.Correlation.Steps[i].Name)
	}
	return "The events of cordon rule " + r.ID + "."
}

func stepSlug(name string) string {
	s := strings.Trim(notID.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if s == "" {
		s = "step"
	}
	return s
}

// uuidFor is a stable name-based UUID (version 5 layout over SHA-1), so
// that an exported rule keeps its id from one export to the next.
func uuidFor(name string) string {
	h := sha1.Sum([]byte("cordon-rule:" + name))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// sigmaTimespan writes a window as Sigma's timespan: a whole number of
// seconds, minutes, hours or days.
func sigmaTimespan(d time.Duration) (string, error) {
	if d <= 0 || d%time.Second != 0 {
		return "", fmt.Errorf("window %s: Sigma's timespan is whole seconds", d)
	}
	for _, u := range []struct {
		d time.Duration
		s string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if d%u.d == 0 {
			return fmt.Sprintf("%d%s", d/u.d, u.s), nil
		}
	}
	return "", nil
}

// defaultCondition reports a condition that is none, or the one the
// engine puts for none (gte n).
func defaultCondition(c detect.Condition, n float64) bool {
	return c == (detect.Condition{}) || c.Gte != nil && *c.Gte == n && c.Gt == nil && c.Lt == nil && c.Lte == nil && c.Neq == nil
}

func conditionMap(c detect.Condition) map[string]any {
	m := map[string]any{}
	for _, b := range []struct {
		k string
		v *float64
	}{{"gt", c.Gt}, {"gte", c.Gte}, {"lt", c.Lt}, {"lte", c.Lte}, {"neq", c.Neq}} {
		if b.v != nil {
			m[b.k] = *b.v
		}
	}
	return m
}

// cordonLogsource is the log source of rules on cordon's own fields: every
// event cordon holds.
var cordonLogsource = Logsource{Product: "cordon"}

func (l Logsource) mapping() map[string]string {
	m := map[string]string{}
	for k, v := range map[string]string{"category": l.Category, "product": l.Product, "service": l.Service} {
		if v != "" {
			m[k] = v
		}
	}
	return m
}

// sigmaFieldFor is the Sigma name of a cordon field under a log source:
// the pipeline's name for it when one maps onto that field alone, else
// the cordon name (which the pipeline reads as itself).
func sigmaFieldFor(field string, ls Logsource, p *Pipeline) (string, error) {
	if ls == cordonLogsource {
		return field, nil
	}
	var names []string
	for _, t := range p.Transformations {
		if t.Type != "field_name_mapping" || !t.applies(ls) {
			continue
		}
		for from, to := range t.Mapping {
			if len(to) == 1 && to[0] == field {
				names = append(names, from)
			}
		}
	}
	if len(names) == 0 {
		return field, nil
	}
	sort.Strings(names)
	return names[0], nil
}

// logsourceOf picks the Sigma log source of a query: one whose pipeline
// conditions the query requires, every one of them (a conjunct of the
// query's top level), so that the pipeline adds back exactly what the
// export leaves out. It returns the conjuncts that remain.
func logsourceOf(q evidence.Query, p *Pipeline) (Logsource, evidence.Query) {
	conj := []evidence.Query{q}
	if q.Op() == evidence.OpAnd {
		conj = q.Subs()
	}
	for _, t := range p.Transformations {
		if t.Type != "add_condition" || len(t.Logsources) != 1 || len(t.Conditions) == 0 {
			continue
		}
		rest := slicesClone(conj)
		ok := true
		for _, c := range t.Conditions {
			if len(c.Values) != 1 {
				ok = false
				break
			}
			want := evidence.Term(c.Field, c.Values[0])
			found := -1
			for i, s := range rest {
				if s.Equal(want) {
					found = i
					break
				}
			}
			if found < 0 {
				ok = false
				break
			}
			rest = append(rest[:found], rest[found+1:]...)
		}
		if ok && len(rest) > 0 {
			return t.Logsources[0], evidence.And(rest...)
		}
	}
	return cordonLogsource, q
}

func slicesClone(qs []evidence.Query) []evidence.Query { return append([]evidence.Query(nil), qs...) }
