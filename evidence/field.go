package evidence

import (
	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

// field is a document field analysed when the document is built, not when
// Bleve indexes the batch: its Analyze does nothing. Keyword terms are
// taken as they are; text goes through textFreqs. The analysis can then
// run on the goroutine that prepares the next batch while Bleve writes the
// current one, instead of inside the batch.
type field struct {
	name   string
	value  []byte // kept only when stored
	opts   index.FieldIndexingOptions
	length int
	freqs  index.TokenFrequencies
}

var _ document.Field = (*field)(nil)

// keywords is an exact-match field holding each term once.
func keywords(name string, opts index.FieldIndexingOptions, terms ...string) *field {
	tfs := make([]index.TokenFreq, len(terms))
	freqs := make(index.TokenFrequencies, len(terms))
	for i, t := range terms {
		if tf, ok := freqs[t]; ok {
			tf.SetFrequency(tf.Frequency() + 1)
			continue
		}
		tfs[i].Term = []byte(t)
		tfs[i].SetFrequency(1)
		freqs[t] = &tfs[i]
	}
	return &field{name: name, opts: opts, length: len(terms), freqs: freqs}
}

func (b docBuilder) textField(name, text string) *field {
	n, freqs := textFreqs(b.text, []byte(text))
	return &field{name: name, opts: textOpts, length: n, freqs: freqs}
}

// without takes from a text field the words any of others holds, and
// reports whether it holds any word still.
func (f *field) without(others []index.TokenFrequencies) bool {
	for term, tf := range f.freqs {
		for _, o := range others {
			if _, ok := o[term]; ok {
				f.length -= tf.Frequency()
				delete(f.freqs, term)
				break
			}
		}
	}
	return len(f.freqs) > 0
}

func (f *field) Name() string                                     { return f.name }
func (f *field) ArrayPositions() []uint64                         { return nil }
func (f *field) Options() index.FieldIndexingOptions              { return f.opts }
func (f *field) Analyze()                                         {}
func (f *field) Value() []byte                                    { return f.value }
func (f *field) NumPlainTextBytes() uint64                        { return uint64(len(f.value)) }
func (f *field) EncodedFieldType() byte                           { return 't' }
func (f *field) AnalyzedLength() int                              { return f.length }
func (f *field) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }

// Size is what Bleve accounts the field in memory as.
func (f *field) Size() int {
	n := 64 + len(f.name) + len(f.value)
	for k := range f.freqs {
		n += 48 + 2*len(k)
	}
	return n
}
