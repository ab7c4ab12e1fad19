package sigma

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// compiled is a detection rule as the engine runs it: the query the store
// answers (the log source's events) and the filter with the rule's whole
// meaning.
type compiled struct {
	query  string
	filter *Filter
}

// episodeGap is how close two matches of a Sigma detection rule about one
// agent are to be one finding.
const episodeGap = 10 * time.Minute

// compileDetection applies the pipeline to a detection rule and compiles
// it. The rule is changed (its items mapped): parse a rule afresh for
// another pipeline.
func compileDetection(r *Rule, p *Pipeline) (compiled, *Refusal) {
	f := &refuser{file: r.File, rule: r.label()}
	added, served := p.apply(r)
	if !served {
		return compiled{}, f.at(r.Logsource.node, "logsource %s: the pipeline %q names no cordon events for it", r.Logsource, p.Name)
	}
	src := sourceOf(r.Logsource)
	var ref *Refusal
	r.Detection.eachItem(func(it *Item) {
		if ref != nil {
			return
		}
		switch {
		case it.Field == "":
			it.Fields = keywordFields
		case it.Fields == nil && cordonField(it.Field):
			it.Fields = []string{it.Field}
		case it.Fields == nil:
			ref = f.at(it.node, "field %q is not mapped for logsource %s: no cordon event field holds it (see docs/sigma.md)", it.Field, r.Logsource)
		}
	})
	if ref != nil {
		return compiled{}, ref
	}
	sels := map[string]pred{}
	for _, name := range r.Detection.Names {
		var groups orPred
		for _, g := range r.Detection.Selections[name].Groups {
			var items andPred
			for _, it := range g {
				ip, ref := compileItem(f, it, src)
				if ref != nil {
					return compiled{}, ref
				}
				items = append(items, ip)
			}
			groups = append(groups, items)
		}
		sels[name] = groups
	}
	var conds orPred
	for _, c := range r.Detection.Conditions {
		conds = append(conds, condPred(c, r.Detection, sels))
	}
	var all andPred
	var qs []evidence.Query
	for _, it := range added {
		ip, ref := compileItem(f, it, src)
		if ref != nil {
			return compiled{}, ref
		}
		all = append(all, ip)
		var vs []string
		for _, v := range it.Values {
			vs = append(vs, v.S)
		}
		qs = append(qs, evidence.Terms(it.Fields[0], vs...))
	}
	all = append(all, conds)
	return compiled{query: evidence.And(qs...).String(), filter: newFilter(all)}, nil
}

func condPred(c cond, d *Detection, sels map[string]pred) pred {
	switch c.op {
	case "and", "or":
		ps := make([]pred, len(c.subs))
		for i, s := range c.subs {
			ps[i] = condPred(s, d, sels)
		}
		if c.op == "and" {
			return andPred(ps)
		}
		return orPred(ps)
	case "not":
		return notPred{condPred(c.subs[0], d, sels)}
	case "ref":
		return sels[c.name]
	}
	var ps []pred
	for _, n := range d.match(c.name) {
		ps = append(ps, sels[n])
	}
	if c.op == "allof" {
		return andPred(ps)
	}
	return orPred(ps)
}

var notID = regexp.MustCompile(`[^a-z0-9]+`)

// ruleID is the detector name of a Sigma rule's findings: its id (a UUID
// as the specification recommends), else its name or title made one.
func ruleID(r *Rule) string {
	for _, s := range []string{r.ID, r.Name, r.Title} {
		if id := strings.Trim(notID.ReplaceAllString(strings.ToLower(s), "-"), "-"); id != "" {
			return id
		}
	}
	return "sigma"
}

// title keeps a Sigma title out of the explain template's syntax.
func title(r *Rule) string {
	return strings.NewReplacer("{{", "{ {", "}}", "} }").Replace(r.Title)
}

func levelText(r *Rule) string {
	if r.Level == "" {
		return "no level"
	}
	return r.Level
}

// description is the rule's own, with its false positives, which cordon
// has no field of its own for.
func description(r *Rule) string {
	parts := []string{strings.TrimSpace(r.Description)}
	if len(r.FalsePositives) > 0 {
		parts = append(parts, "False positives: "+strings.Join(r.FalsePositives, "; "))
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// detectRule is a detection rule on its own: every matching event is a
// match, and matches about one agent within episodeGap are one finding.
func detectRule(r *Rule, c compiled) detect.Rule {
	sev, _ := severity(r.Level)
	return detect.Rule{
		ID: ruleID(r), Title: r.Title, Severity: sev, Phase: phaseOf(r.Tags), Tags: r.Tags,
		Description: description(r),
		Explain: fmt.Sprintf("Sigma %s (%s, id %s): {{count}} matching event(s) {{start}}–{{end}}",
			title(r), levelText(r), r.ID),
		Query: []string{c.query},
		// grouped by event: each event is its own match, whoever's it is
		// (an unattributed one too); Episodes then joins an agent's
		Correlation: detect.Correlation{Type: detect.EventCount, GroupBy: "id", Window: episodeGap,
			Condition: detect.Condition{Gte: detect.Num(1)}},
		Origin: fmt.Sprintf("%s:%d", r.File, r.Line),
		Filter: c.filter,
	}
}
