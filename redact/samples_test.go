package redact

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// What redaction takes out of the bundled samples' evidence, measured:
// every line of every evidence file (the ledger, the proxy, sensor and
// audit logs) is redacted, and each distinct string replaced is sorted
// into what a responder needs to see (a plain file path, an identifier
// such as a key id or a service account) and the rest. The first two must
// be none. Run with -v for the figures (docs/security.md records them).
func TestSampleRedactions(t *testing.T) {
	dirs, err := filepath.Glob("../sample-incidents/*/ledger.jsonl")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no bundled samples found: %v", err)
	}
	var total sampleTally
	for _, ledger := range dirs {
		dir := filepath.Dir(ledger)
		tally := redactSample(t, dir)
		t.Logf("%-24s %7d lines %5d replacements %3d distinct: %d paths, %d identifiers, %d other %s",
			filepath.Base(dir), tally.lines, tally.replaced, len(tally.distinct), len(tally.paths), len(tally.ids), len(tally.other), tally.otherList())
		for _, p := range tally.paths {
			t.Errorf("%s: a plain path was redacted: %q", filepath.Base(dir), p)
		}
		for _, id := range tally.ids {
			t.Errorf("%s: an identifier was redacted: %q", filepath.Base(dir), id)
		}
		total.lines += tally.lines
		total.replaced += tally.replaced
		total.paths = append(total.paths, tally.paths...)
		total.ids = append(total.ids, tally.ids...)
		total.other = append(total.other, tally.other...)
	}
	t.Logf("all samples: %d lines, %d replacements, %d paths, %d identifiers, %d other", total.lines, total.replaced, len(total.paths), len(total.ids), len(total.other))
}

type sampleTally struct {
	lines, replaced   int
	distinct          map[string]int
	paths, ids, other []string
}

func (s sampleTally) otherList() string {
	if len(s.other) == 0 {
		return ""
	}
	short := make([]string, len(s.other))
	for i, o := range s.other {
		if len(o) > 16 {
			o = o[:12] + "…"
		}
		short[i] = fmt.Sprintf("%q×%d", o, s.distinct[s.other[i]])
	}
	return "(" + strings.Join(short, ", ") + ")"
}

// sampleID: what a responder acts on, by its form alone (not by the
// redactor's own decider, so that the measure does not grade itself).
var (
	sampleID   = regexp.MustCompile(`^(?:(?:AKIA|ASIA|AIDA|AROA|AGPA|ANPA)[A-Z0-9]{16}|system:serviceaccount:\S+|SHA256:[A-Za-z0-9+/]{43}|[0-9a-f]{16,}|cred-\S+|px-\S+)$`)
	samplePath = regexp.MustCompile(`^(?:~|\.{1,2})?/[\w.@%+,-]+(?:/[\w.@%+,-]+)+/?$`)
)

func redactSample(t *testing.T, dir string) sampleTally {
	t.Helper()
	tally := sampleTally{distinct: map[string]int{}}
	r := &Redactor{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if !strings.Contains(rel, string(filepath.Separator)) && rel != "ledger.jsonl" {
			return nil // README, truth, drill files: not evidence
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			tally.lines++
			r.seen = map[string]string{}
			before := r.count
			r.Redact(sc.Text())
			tally.replaced += r.count - before
			for _, s := range r.order {
				tally.distinct[s]++
			}
			r.order = r.order[:0]
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	for s := range tally.distinct {
		switch {
		case samplePath.MatchString(s) && strings.Contains(s, "/"):
			tally.paths = append(tally.paths, s)
		case sampleID.MatchString(s):
			tally.ids = append(tally.ids, s)
		default:
			tally.other = append(tally.other, s)
		}
	}
	sort.Strings(tally.paths)
	sort.Strings(tally.ids)
	sort.Strings(tally.other)
	return tally
}

// BenchmarkRedactSamples redacts every evidence line of the bundled
// samples (8.9 MB of ledger, proxy, sensor and audit records) once.
func BenchmarkRedactSamples(b *testing.B) {
	var lines []string
	var size int64
	files, _ := filepath.Glob("../sample-incidents/*/*.jsonl")
	more, _ := filepath.Glob("../sample-incidents/*/*/*")
	more2, _ := filepath.Glob("../sample-incidents/*/*/*/*")
	for _, f := range append(append(files, more...), more2...) {
		if strings.Contains(f, "drill-answers") || strings.HasSuffix(f, ".go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue // a directory
		}
		size += int64(len(data))
		lines = append(lines, strings.Split(string(data), "\n")...)
	}
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		r := &Redactor{}
		for _, l := range lines {
			r.Redact(l)
		}
	}
}
