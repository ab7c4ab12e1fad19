package sigma

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cordon-ir/cordon/detect"
)

// Set is what loading Sigma rules gives: the engine rules cordon runs and
// the rules it refused, each with its place and reason.
type Set struct {
	Rules   []detect.Rule
	Refused []*Refusal
	// Members are the rules loaded only as part of a correlation (its
	// generate is false): they give no findings of their own.
	Members int
	// Unfed are rules loaded that no source cordon reads can feed: every
	// event they could match needs a field that no parser of their log
	// source writes (sigma/written.go). They run, and can never fire.
	Unfed []*Refusal
}

// Load reads Sigma rules from files and folders (every .yml and .yaml
// file beneath a folder), applies the pipeline (nil: Builtin) and
// compiles them. An error is returned only when a path cannot be read.
func Load(p *Pipeline, paths ...string) (*Set, error) {
	if p == nil {
		var err error
		if p, err = Builtin(); err != nil {
			return nil, err
		}
	}
	var files []string
	for _, path := range paths {
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("sigma: %w", err)
		}
		if !st.IsDir() {
			files = append(files, path)
			continue
		}
		err = filepath.WalkDir(path, func(f string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(f, ".yml") || strings.HasSuffix(f, ".yaml")) {
				files = append(files, f)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("sigma: %w", err)
		}
	}
	sort.Strings(files)
	var docs []*Rule
	set := &Set{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("sigma: %w", err)
		}
		rs, refused := Parse(file, data)
		docs = append(docs, rs...)
		set.Refused = append(set.Refused, refused...)
	}
	set.compile(docs, p)
	return set, nil
}

// compile compiles parsed documents: correlations resolve the rules they
// name (by name or id) among them.
func (s *Set) compile(docs []*Rule, p *Pipeline) {
	byRef := map[string]*Rule{}
	for _, r := range docs {
		for _, k := range []string{r.ID, r.Name} {
			if k != "" {
				byRef[k] = r
			}
		}
	}
	done := map[*Rule]compiled{}
	why := map[*Rule]*Refusal{}
	compileOne := func(r *Rule) (compiled, *Refusal) {
		if c, ok := done[r]; ok {
			return c, nil
		}
		if ref, ok := why[r]; ok {
			return compiled{}, ref
		}
		c, ref := compileDetection(r, p)
		if ref != nil {
			why[r] = ref
			return compiled{}, ref
		}
		done[r] = c
		return c, nil
	}
	memberOnly := map[*Rule]bool{}
	standalone := map[*Rule]bool{}
	corrDone := map[*Rule]*detect.Rule{}
	corrWhy := map[*Rule]*Refusal{}
	busy := map[*Rule]bool{}
	// compileCorr compiles a correlation, and the correlations it names
	// first (a chain); chained says it is named by another, so that it
	// groups as the chain does.
	var compileCorr func(r *Rule, chained bool) (*detect.Rule, *Refusal)
	compileCorr = func(r *Rule, chained bool) (*detect.Rule, *Refusal) {
		if dr, ok := corrDone[r]; ok {
			return dr, nil
		}
		if ref, ok := corrWhy[r]; ok {
			return nil, ref
		}
		f := &refuser{file: r.File, rule: r.label()}
		busy[r] = true
		defer delete(busy, r)
		var members []member
		var ref *Refusal
		for i, name := range r.Correlation.Rules {
			m := byRef[name]
			at := r.Correlation.nodes["rules"]
			if at != nil && i < len(at.Content) {
				at = at.Content[i]
			}
			switch {
			case m == nil:
				ref = f.at(at, "names rule %q, which no loaded rule has as its name or id", name)
			case m.Correlation != nil && busy[m]:
				ref = f.at(at, "names correlation %q, which names this one: a chain must end in detection rules", name)
			case m.Correlation != nil:
				if ref = chainRefusal(f, at, name, r, m); ref != nil {
					break
				}
				inner, mref := compileCorr(m, true)
				if mref != nil {
					ref = f.at(at, "names correlation %q, which was refused: %s", name, mref.Reason)
				}
				members = append(members, member{rule: m, corr: inner})
			default:
				c, mref := compileOne(m)
				if mref != nil {
					ref = f.at(at, "names rule %q, which was refused: %s", name, mref.Reason)
				}
				members = append(members, member{rule: m, c: c})
			}
			if ref != nil {
				break
			}
			if r.Correlation.Generate {
				standalone[m] = true
			} else {
				memberOnly[m] = true
			}
		}
		var dr detect.Rule
		if ref == nil {
			dr, ref = compileCorrelation(r, members, p, chained)
		}
		if ref != nil {
			corrWhy[r] = ref
			return nil, ref
		}
		corrDone[r] = &dr
		return &dr, nil
	}
	var out []detect.Rule
	var corrs []*Rule
	for _, r := range docs {
		if r.Correlation == nil {
			continue
		}
		corrs = append(corrs, r)
		named := false
		for _, o := range docs {
			if o.Correlation != nil && slices.ContainsFunc(o.Correlation.Rules, func(n string) bool { return byRef[n] == r }) {
				named = true
			}
		}
		if _, ref := compileCorr(r, named); ref != nil {
			s.Refused = append(s.Refused, ref)
		}
	}
	for _, r := range corrs {
		if dr := corrDone[r]; dr != nil && (!memberOnly[r] || standalone[r]) {
			out = append(out, *dr)
		} else if dr != nil {
			s.Members++
		}
	}
	for _, r := range docs {
		if r.Correlation != nil {
			continue
		}
		c, ref := compileOne(r)
		if ref != nil {
			s.Refused = append(s.Refused, ref)
			continue
		}
		if memberOnly[r] && !standalone[r] {
			s.Members++
			continue
		}
		if ok, _ := canFire(sourceOf(r.Logsource), c.filter.p); !ok {
			s.Unfed = append(s.Unfed, &Refusal{File: r.File, Line: r.Line, Col: r.Col, Rule: r.label(),
				Reason: "no source cordon reads writes " + strings.Join(unfedFields(sourceOf(r.Logsource), c.filter.p), ", ") +
					" for logsource " + r.Logsource.String() + ", which every event it matches needs"})
		}
		dr := detectRule(r, c)
		if err := dr.Validate(); err != nil {
			s.Refused = append(s.Refused, &Refusal{File: r.File, Line: r.Line, Col: r.Col, Rule: r.label(), Reason: err.Error()})
			continue
		}
		out = append(out, dr)
	}
	seen := map[string]string{}
	for _, r := range out {
		if first, ok := seen[r.ID]; ok {
			s.Refused = append(s.Refused, &Refusal{File: strings.Split(r.Origin, ":")[0], Line: lineOf(r.Origin), Col: 1,
				Rule: r.Title, Reason: fmt.Sprintf("id %s is already the id of the rule at %s", r.ID, first)})
			continue
		}
		seen[r.ID] = r.Origin
		s.Rules = append(s.Rules, r)
	}
	var fs []*Filter
	for i := range s.Rules {
		fs = appendFilters(fs, &s.Rules[i])
	}
	indexFilters(fs)
}

// appendFilters appends the Sigma filters of r and of its steps.
func appendFilters(fs []*Filter, r *detect.Rule) []*Filter {
	if f, ok := r.Filter.(*Filter); ok {
		fs = append(fs, f)
	}
	for _, st := range r.Correlation.Steps {
		if f, ok := st.Filter.(*Filter); ok {
			fs = append(fs, f)
		}
		if st.Rule != nil {
			fs = appendFilters(fs, st.Rule)
		}
	}
	return fs
}

func lineOf(origin string) int {
	i := strings.LastIndexByte(origin, ':')
	n := 0
	fmt.Sscanf(origin[i+1:], "%d", &n)
	return n
}
