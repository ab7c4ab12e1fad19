package redact

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/spf13/viper"
	gitleaks "github.com/zricethezav/gitleaks/v8/config"
)

// corpusRule is one rule of gitleaks' default corpus, as Redact applies it
// to evidence text: its keywords gate the regular expression, the secret
// group (or the first non-empty group) is what is replaced, and its
// entropy floor and allowlists drop what gitleaks itself would not report.
type corpusRule struct {
	id       string
	re       *regexp.Regexp
	group    int
	entropy  float64
	keywords []string
	allow    []*gitleaks.Allowlist
	// generic: a rule that names no provider, whose hex and UUID values
	// are left alone like every other id (see plausibleCorpusSecret).
	generic bool
}

// corpusSet is the corpus with the index that gates it: one pass of an
// Aho-Corasick automaton over the lower-cased text finds every keyword
// present, and only the rules of those keywords run. Checking the some
// 700 keywords one by one cost more than the rest of redaction.
type corpusSet struct {
	rules     []corpusRule
	keywords  *ahocorasick.Trie
	byKeyword [][]int // keyword number -> the rules it gates
	always    []int   // rules with no keyword
}

// corpus is loaded once: compiling some two hundred expressions takes
// tens of milliseconds, and they never change in a process.
var corpus = sync.OnceValues(loadCorpus)

func loadCorpus() (*corpusSet, error) {
	rules, err := loadRules()
	if err != nil {
		return nil, err
	}
	set := &corpusSet{rules: rules}
	number := map[string]int{}
	var words []string
	for i, r := range rules {
		if len(r.keywords) == 0 {
			set.always = append(set.always, i)
		}
		for _, k := range r.keywords {
			n, ok := number[k]
			if !ok {
				n = len(words)
				number[k] = n
				words = append(words, k)
				set.byKeyword = append(set.byKeyword, nil)
			}
			set.byKeyword[n] = append(set.byKeyword[n], i)
		}
	}
	set.keywords = ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	return set, nil
}

// gated lists the rules whose keywords lower holds, in corpus order.
func (c *corpusSet) gated(lower string) []int {
	matches := c.keywords.MatchString(lower)
	if len(matches) == 0 {
		return c.always
	}
	on := make([]bool, len(c.rules))
	for _, i := range c.always {
		on[i] = true
	}
	for _, m := range matches {
		for _, i := range c.byKeyword[m.Pattern()] {
			on[i] = true
		}
	}
	var out []int
	for i, ok := range on {
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// loadRules reads gitleaks' default configuration (the TOML the module
// embeds, parsed by the module's own code) into corpusRules.
func loadRules() ([]corpusRule, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(gitleaks.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("gitleaks default rules: %w", err)
	}
	var vc gitleaks.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, fmt.Errorf("gitleaks default rules: %w", err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("gitleaks default rules: %w", err)
	}
	var out []corpusRule
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		if r.Regex == nil {
			continue // a rule on file names only: evidence lines have none
		}
		kw := make([]string, len(r.Keywords))
		for i, k := range r.Keywords {
			kw[i] = strings.ToLower(k)
		}
		out = append(out, corpusRule{
			id: id, re: r.Regex, group: r.SecretGroup, entropy: r.Entropy, keywords: kw,
			allow: append(append([]*gitleaks.Allowlist(nil), r.Allowlists...), cfg.Allowlists...), generic: id == "generic-api-key",
		})
	}
	return out, nil
}

// CorpusRules lists the ids of the gitleaks rules Redact applies, in
// gitleaks' order, for the documentation and its test.
func CorpusRules() ([]string, error) {
	set, err := corpus()
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(set.rules))
	for i, r := range set.rules {
		ids[i] = r.id
	}
	return ids, nil
}

// corpusSpans appends the secrets the corpus rules find in text to found.
func corpusSpans(text, lower string, found []span) []span {
	set, err := corpus()
	if err != nil {
		// The corpus is compiled into the binary; a failure to read it is
		// a build defect that the package's tests catch. Redaction goes on
		// with cordon's own patterns rather than send nothing at all.
		return found
	}
	for _, i := range set.gated(lower) {
		found = set.rules[i].spans(text, found)
	}
	return found
}

func (cr *corpusRule) spans(text string, found []span) []span {
	for _, loc := range cr.re.FindAllStringSubmatchIndex(text, -1) {
		s, e := secretSpan(loc, cr.group)
		if s == e {
			continue
		}
		secret, match := text[s:e], text[loc[0]:loc[1]]
		if cr.entropy > 0 && shannon(secret) <= cr.entropy || !plausibleCorpusSecret(cr, secret) || cr.allowed(secret, match, lineAround(text, loc[0], loc[1])) {
			continue
		}
		found = append(found, span{s, e})
	}
	return found
}

// secretSpan is gitleaks' choice of the secret in a match: the rule's
// secret group, else the first group that matched something, else the
// whole match.
func secretSpan(loc []int, group int) (int, int) {
	if group > 0 && 2*group+1 < len(loc) {
		return loc[2*group], loc[2*group+1]
	}
	for g := 1; 2*g+1 < len(loc); g++ {
		if loc[2*g] >= 0 && loc[2*g+1] > loc[2*g] {
			return loc[2*g], loc[2*g+1]
		}
	}
	return loc[0], loc[1]
}

// plausibleCorpusSecret keeps cordon's exemptions: a placeholder is never
// redacted again, and the generic rule leaves the ids evidence is made of
// (event, container and credential ids, digests, UUIDs) alone. A
// provider's rule is trusted as it stands: some providers' keys are hex.
func plausibleCorpusSecret(cr *corpusRule, secret string) bool {
	if strings.Contains(secret, "[SECRET-") {
		return false
	}
	if !cr.generic {
		return true
	}
	return !hexOrUUID.MatchString(secret) && !strings.HasPrefix(secret, "cred-") && plausibleValue(secret)
}

// allowed applies the rule's allowlists as gitleaks' detector does: each
// one's regexes against its target (the secret, the match or the line)
// and its stop words against the secret, all of them when its condition
// is AND, any when OR. Commit and path conditions cannot hold for
// evidence text, so an AND allowlist that has them never allows.
func (cr *corpusRule) allowed(secret, match, line string) bool {
	for _, a := range cr.allow {
		target := secret
		switch a.RegexTarget {
		case "match":
			target = match
		case "line":
			target = line
		}
		re := a.RegexAllowed(target)
		stop, _ := a.ContainsStopWord(secret)
		if a.MatchCondition == gitleaks.AllowlistMatchAnd {
			if len(a.Commits) > 0 || len(a.Paths) > 0 || len(a.Regexes) > 0 && !re || len(a.StopWords) > 0 && !stop {
				continue
			}
			return true
		}
		if re || stop {
			return true
		}
	}
	return false
}

// lineAround is the line of text holding [s, e).
func lineAround(text string, s, e int) string {
	from := strings.LastIndexByte(text[:s], '\n') + 1
	to := strings.IndexByte(text[e:], '\n')
	if to < 0 {
		return text[from:]
	}
	return text[from : e+to]
}
