package incident

import (
	"errors"
	"fmt"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/playbook"
)

// QueryChange is a query of a workspace that reads otherwise in cordon's
// query syntax than it did in Bleve's, where an unsigned clause was
// optional: Old is what it meant, written in the new syntax.
type QueryChange struct {
	// Where names it: file:line for a rule, the playbook step for a saved
	// search or a check, "search history" for a query once run.
	Where string
	// What is "rule" (refused until rewritten), "saved search", "check" or
	// "history".
	What     string
	Query    string
	Old, New evidence.Query
}

// QueryReport is what `cordon rules check` tells: the queries whose
// meaning changed, and the rule problems that are not about that.
type QueryReport struct {
	Changes []QueryChange
	// Problems are the workspace's rules that do not load for another
	// reason (a typo, an unknown field): refused as well.
	Problems []error
	// Checked counts the queries looked at.
	Checked int
}

// CheckQueries reads every query a workspace keeps beyond the built-in
// ones: the rules of cordon.yaml (or rulesPath, when given), the saved
// searches and checks of its playbook, and its search history.
func CheckQueries(dir, rulesPath string) (QueryReport, error) {
	var rep QueryReport
	c, err := LoadConfig(dir, false)
	if err != nil {
		return rep, err
	}
	if rulesPath == "" && c.Rules != "" {
		rulesPath = c.Path(c.Rules)
	}
	if rulesPath != "" {
		rep.checkRules(rulesPath)
	}
	if c.Playbook != "" {
		pb, err := c.LoadPlaybook()
		if err != nil {
			return rep, err
		}
		rep.checkPlaybook(pb)
	}
	hist, err := OpenHistory(dir).Load()
	if err != nil {
		return rep, err
	}
	for _, q := range hist {
		rep.check("search history", "history", q)
	}
	return rep, nil
}

func (r *QueryReport) checkRules(path string) {
	rules, err := detect.Load(path)
	r.Checked += countQueries(rules)
	if err == nil {
		return
	}
	for _, e := range flatten(err) {
		var re *detect.RuleError
		var ce *detect.ChangedError
		if errors.As(e, &re) && errors.As(e, &ce) {
			r.Checked++
			r.Changes = append(r.Changes, QueryChange{Where: fmt.Sprintf("%s:%d", re.File, re.Line), What: "rule", Query: ce.Query, Old: ce.Old, New: ce.New})
			continue
		}
		r.Problems = append(r.Problems, e)
	}
}

func countQueries(rules []detect.Rule) int {
	n := 0
	for _, r := range rules {
		n += len(r.Query) + len(r.Correlation.Steps)
	}
	return n
}

// flatten lists the errors a join holds.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		if _, rule := err.(*detect.RuleError); !rule {
			var out []error
			for _, e := range j.Unwrap() {
				out = append(out, flatten(e)...)
			}
			return out
		}
	}
	return []error{err}
}

func (r *QueryReport) checkPlaybook(pb *playbook.Playbook) {
	for _, ref := range pb.Steps() {
		s := ref.Step
		where := fmt.Sprintf("playbook %s step %s (line %d)", pb.ID, s.ID, s.Line)
		for _, q := range s.Queries {
			r.checkTemplate(where, "saved search", q.Query)
		}
		if s.Check != nil {
			for _, q := range append(append([]string(nil), s.Check.Queries...), s.Check.Coverage...) {
				r.checkTemplate(where, "check", q)
			}
		}
	}
}

// checkTemplate checks a query template with its variables given a
// placeholder value: the variables do not change how it reads.
func (r *QueryReport) checkTemplate(where, what, tmpl string) {
	vars := playbook.Vars{}
	for _, n := range playbook.Names(tmpl) {
		vars[n] = []string{"placeholder"}
		if playbook.IsTimeVariable(n) {
			vars[n] = []string{"2026-01-02T03:04:05Z"}
		}
	}
	rendered, err := playbook.Expand(tmpl, vars)
	if err != nil || len(rendered) == 0 {
		return
	}
	r.check(where, what, rendered[0], tmpl)
}

// check records q (shown as shown, when given) if its meaning changed.
func (r *QueryReport) check(where, what, q string, shown ...string) {
	r.Checked++
	old, now, changed, err := evidence.Changed(q)
	if err != nil || !changed {
		return
	}
	text := q
	if len(shown) > 0 {
		text = shown[0]
	}
	r.Changes = append(r.Changes, QueryChange{Where: where, What: what, Query: text, Old: old, New: now})
}

// CheckRuleQueries checks the rules of a file or folder alone, without a
// workspace.
func CheckRuleQueries(path string) (QueryReport, error) {
	var rep QueryReport
	rep.checkRules(path)
	return rep, nil
}
