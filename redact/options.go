package redact

import (
	_ "embed"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"gopkg.in/yaml.v3"
)

// Secrets given to a command's options come in two classes. A long option
// named like a secret (--password, --db-pass, -storepass, --api-key,
// --auth-token) takes one whatever the command; optionSpans finds those.
// A short option means what each tool says (-p: sshpass's password, ssh's
// port), so those come from a table kept as data (tools.yaml), by tool.

// An option's value: quoted ('…', "…", or \"…\" inside a JSON string) it
// is taken whole; bare, up to a blank, a quote or a shell separator, a
// backslash escape inside it included. A spaced value (the next argument)
// does not start with '-': that is the next option.
const (
	quotedValue   = `'([^'\n]+)'|"([^"\n\\]+)"|\\"([^"\\\n]+)\\"`
	bareRest      = `(?:[^\s"'\\|;&<>]|\\[^"nrt\s])*`
	spacedValue   = quotedValue + `|((?:[^\s"'\\|;&<>-]|\\[^"nrt\s])` + bareRest + `)`
	attachedValue = quotedValue + `|((?:[^\s"'\\|;&<>]|\\[^"nrt\s])` + bareRest + `)`
)

// longOption finds a long option named like a secret and its value, given
// with = or as the next argument: a name ending in one of the words below.
var longOption = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[\s"'(])(--?[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|pass[_-]phrase|pass|pwd|pw|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key|private[_-]?key|bearer))(?:=|[ \t]+)(?:pass:)?(?:` + spacedValue + `)`)
})

var longOptionHints = []string{"pass", "pw", "secret", "token", "key", "bearer"}

// notSecretOption: names that end like a secret's and are not one, and
// flags that say how a secret is given rather than give it.
var notSecretOption = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^--?(?:(?:no|skip|ask|prompt|with|without|use|show|print|read|require|reset|change|forgot|generate|gen|rotate|random|hide|mask|disable|enable|allow|max|min|num)[_-].*|.*(?:bypass|compass|surpass|trespass|overpass|underpass))$`)
})

// optionSpans appends the values of long options named like secrets.
func optionSpans(text, lower string, found []span) []span {
	if !hinted(lower, longOptionHints) {
		return found
	}
	for _, loc := range longOption().FindAllStringSubmatchIndex(text, -1) {
		if notSecretOption().MatchString(text[loc[2]:loc[3]]) {
			continue
		}
		s, e := firstGroup(loc, 2)
		if s < 0 || !plausibleValue(text[s:e]) || reference(text[s:e]) {
			continue
		}
		found = append(found, span{s, e})
	}
	return found
}

// reference: a value that says where the secret is, not what it is
// (openssl's env:VAR, file:PATH, fd:N; curl's @file).
func reference(v string) bool {
	for _, p := range []string{"env:", "file:", "fd:", "@"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return v == "stdin"
}

// firstGroup is the first submatch from group from on that matched
// something: the value's alternatives are groups of their own.
func firstGroup(loc []int, from int) (int, int) {
	for g := from; 2*g+1 < len(loc); g++ {
		if loc[2*g] >= 0 && loc[2*g+1] > loc[2*g] {
			return loc[2*g], loc[2*g+1]
		}
	}
	return -1, -1
}

//go:embed tools.yaml
var toolsYAML []byte

// toolEntry is one tool (or tool and subcommand) of the table, with the
// forms of its secret-taking options compiled into one expression.
type toolEntry struct {
	words []string // the command word, lower-cased, then its subcommand's
	forms *regexp.Regexp
}

// toolTable is the table compiled, with the automaton that finds its
// command words in a text in one pass.
type toolTable struct {
	byWord map[string][]toolEntry
	words  []string
	trie   *ahocorasick.Trie
}

var tools = sync.OnceValues(func() (*toolTable, error) { return parseTools(toolsYAML) })

// ToolTable lists the table's tools, each with its forms, for the
// documentation and its test.
func ToolTable() (map[string][]string, error) {
	var rows []struct {
		Tools, Forms []string
	}
	if err := yaml.Unmarshal(toolsYAML, &rows); err != nil {
		return nil, fmt.Errorf("tools.yaml: %w", err)
	}
	out := map[string][]string{}
	for _, r := range rows {
		for _, t := range r.Tools {
			out[t] = append(out[t], r.Forms...)
		}
	}
	return out, nil
}

func parseTools(data []byte) (*toolTable, error) {
	var rows []struct {
		Tools, Forms []string
		Why          string
	}
	if err := yaml.Unmarshal(data, &rows); err != nil {
		return nil, fmt.Errorf("tools.yaml: %w", err)
	}
	t := &toolTable{byWord: map[string][]toolEntry{}}
	for i, r := range rows {
		if len(r.Tools) == 0 || len(r.Forms) == 0 {
			return nil, fmt.Errorf("tools.yaml: entry %d names no tool or no form", i+1)
		}
		alts := make([]string, len(r.Forms))
		for j, f := range r.Forms {
			re, err := compileForm(f)
			if err != nil {
				return nil, fmt.Errorf("tools.yaml: %s: %w", r.Tools[0], err)
			}
			alts[j] = re
		}
		forms, err := regexp.Compile(`(?:^|[ \t])(?:` + strings.Join(alts, "|") + `)`)
		if err != nil {
			return nil, fmt.Errorf("tools.yaml: %s: %w", r.Tools[0], err)
		}
		for _, name := range r.Tools {
			words := strings.Fields(strings.ToLower(name))
			if len(t.byWord[words[0]]) == 0 {
				t.words = append(t.words, words[0])
			}
			t.byWord[words[0]] = append(t.byWord[words[0]], toolEntry{words: words, forms: forms})
		}
	}
	t.trie = ahocorasick.NewTrieBuilder().AddStrings(t.words).Build()
	return t, nil
}

// formWord is a placeholder of a form: SECRET, USER or ARG.
var formWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`SECRET|USER|ARG`)
})

// compileForm turns one form ("-p SECRET", "-u USER:SECRET") into an
// expression whose groups are the secret's alternatives.
func compileForm(form string) (string, error) {
	args := strings.Fields(form)
	if !strings.Contains(form, "SECRET") || strings.Count(form, "SECRET") > 1 {
		return "", fmt.Errorf("form %q: SECRET once", form)
	}
	parts := make([]string, len(args))
	for i, a := range args {
		var b strings.Builder
		locs := formWord().FindAllStringIndex(a, -1)
		last := 0
		for _, loc := range locs {
			b.WriteString(regexp.QuoteMeta(a[last:loc[0]]))
			next := "" // the literal character that ends this placeholder
			if loc[1] < len(a) {
				next = regexp.QuoteMeta(a[loc[1] : loc[1]+1])
			}
			switch a[loc[0]:loc[1]] {
			case "SECRET":
				switch {
				case next != "":
					b.WriteString(`([^\s"'\\` + next + `]+)`)
				case loc[0] > 0:
					b.WriteString(`(?:` + attachedValue + `)`)
				default:
					b.WriteString(`(?:` + spacedValue + `)`)
				}
			default:
				b.WriteString(`[^\s"'\\` + next + `]+`)
			}
			last = loc[1]
		}
		b.WriteString(regexp.QuoteMeta(a[last:]))
		parts[i] = b.String()
	}
	return strings.Join(parts, `[ \t]+`), nil
}

// maxCommand bounds how far after a tool's name its options are looked
// for: a command line, not the rest of a tool's output.
const maxCommand = 2048

// toolSpans appends the secrets given to the table's tools' options. A
// tool's options are looked for from its name to the end of its command
// (a line break, a shell separator, the next tool of the table, or
// maxCommand bytes), so the work is one pass over the text.
func toolSpans(text, lower string, found []span) []span {
	t, err := tools()
	if err != nil {
		// The table is compiled into the binary and parsed by the package's
		// tests; the long-option class and the other patterns still run.
		return found
	}
	type hit struct {
		s, e  int
		entry toolEntry
	}
	lower = asciiLower(text, lower)
	var hits []hit
	for _, m := range t.trie.MatchString(lower) {
		s := int(m.Pos())
		e := s + len(m.MatchString())
		if s > 0 && !commandStart(lower[s-1]) {
			continue
		}
		if strings.HasPrefix(lower[e:], ".exe") {
			e += 4
		}
		if e < len(lower) && !blank(lower[e]) && lower[e] != '"' && lower[e] != '\'' {
			continue
		}
		for _, entry := range t.byWord[lower[s:e]] {
			if end, ok := subcommand(lower, e, entry.words[1:]); ok {
				hits = append(hits, hit{s, end, entry})
			}
		}
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].s < hits[j].s })
	for i, h := range hits {
		end := min(len(text), h.e+maxCommand)
		if i+1 < len(hits) && hits[i+1].s > h.e {
			end = min(end, hits[i+1].s)
		}
		if cut := commandEnd(text[h.e:end]); cut >= 0 {
			end = h.e + cut
		}
		seg := text[h.e:end]
		for _, loc := range h.entry.forms.FindAllStringSubmatchIndex(seg, -1) {
			if s, e := firstGroup(loc, 1); s >= 0 && !strings.HasPrefix(seg[s:e], "[SECRET-") {
				found = append(found, span{h.e + s, h.e + e})
			}
		}
	}
	return found
}

// subcommand matches the words after a tool's name, each after blanks,
// and says where they end.
func subcommand(lower string, at int, words []string) (int, bool) {
	for _, w := range words {
		i := at
		for i < len(lower) && blank(lower[i]) {
			i++
		}
		if i == at || !strings.HasPrefix(lower[i:], w) {
			return 0, false
		}
		at = i + len(w)
		if at < len(lower) && !blank(lower[at]) {
			return 0, false
		}
	}
	return at, true
}

// commandStart: what may stand before a command's name (a path's slash,
// a shell separator, the quote that opens a JSON string or argument).
func commandStart(c byte) bool {
	return blank(c) || strings.IndexByte("/\\\"'`(|;&=$", c) >= 0
}

func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// commandEnd is where a command line ends in s: a line break (raw or
// written as \n in a JSON string) or a shell separator; -1 when it runs on.
func commandEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n', '|', ';', '&', '`':
			return i
		case '\\':
			if i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r') {
				return i
			}
		}
	}
	return -1
}

// asciiLower is text with only ASCII letters lower-cased, so that offsets
// in it are offsets in text (strings.ToLower can change a non-ASCII
// character's length); lower is returned when text is all ASCII.
func asciiLower(text, lower string) string {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			b := []byte(text)
			for j, c := range b {
				if c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return lower
}
