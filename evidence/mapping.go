package evidence

import (
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
)

// MappingVersion changes whenever the index layout changes; an index of
// another version is rebuilt, not misread. (Version 3 indexes gained the
// cut field and the MaxIndexed bound without a change: no event of an
// older index had a field cut, and it answers cut:* with none. Version 4
// keeps in allField only the words no text field holds, the id only in
// Bleve's _id, and numbers as the terms of numeric.go. Version 5 indexes
// duration_ms. Version 6 indexes user_agent, parent_exe, parent_cmdline
// and cwd.)
const MappingVersion = 6

// textAnalyzer splits on word boundaries and lowercases, without stop words
// or stemming: responders search for exact tokens like "nohup" or "curl".
const textAnalyzer = "cordon_text"

// A bare word searches bareFields: the text fields and allField, which
// holds the words of the destination host and of the raw record that no
// text field of the event holds. Each word is indexed once per event, not
// once in its field and again in a catch-all (version 3 indexed the text
// fields' words twice: about a quarter of all the terms an event had).
const allField = "_all"

var bareFields = append([]string{allField}, textFields...)

// keywordFields are exact-match fields. Facetable ones also keep doc values.
var keywordFields = []struct {
	name  string
	facet bool
}{
	{"id", false}, {"source", true}, {"format", true}, {"kind", true}, {"agent", true},
	{"attributed_via", true}, {"run", true}, {"session", true}, {"sandbox", true},
	{"model", true}, {"objective", false}, {"tool", true}, {"decision", true},
	{"policy", true}, {"severity", true}, {"tags", true}, {"src_ip", true}, {"src_port", false},
	{"dst_host", true}, {"dst_ip", true}, {"dst_port", true}, {"method", true},
	{"status", true}, {"pid", false}, {"ppid", false}, {"user", true}, {"host", true},
	{"user_agent", true}, {"parent_exe", true}, {"parent_cmdline", false}, {"cwd", false},
	{"call_id", false}, {"exec_id", false}, {"parent_exec_id", false},
	{"trace_id", false}, {"span_id", false}, {"container", true}, {"pod", true},
	{"credential", true}, {"tools_allowed", false}, {"egress_allowlist", false},
	{"cut", false},
}

// textFields are analysed for token search.
var textFields = []string{"message", "cmdline", "url", "path"}

// numericFields allow range queries (bytes_out:>1000000).
var numericFields = []string{"bytes_out", "bytes_in", "duration_ms"}

// FacetFields lists the fields that can be faceted.
func FacetFields() []string {
	var out []string
	for _, f := range keywordFields {
		if f.facet {
			out = append(out, f.name)
		}
	}
	return out
}

func newMapping() (*mapping.IndexMappingImpl, error) {
	im := mapping.NewIndexMapping()
	err := im.AddCustomAnalyzer(textAnalyzer, map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{lowercase.Name},
	})
	if err != nil {
		return nil, err
	}
	im.DefaultAnalyzer = textAnalyzer
	im.DefaultField = allField
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false

	doc := mapping.NewDocumentStaticMapping()
	for _, f := range keywordFields {
		fm := mapping.NewKeywordFieldMapping()
		fm.Store = false
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		fm.DocValues = f.facet
		fm.Analyzer = keyword.Name
		doc.AddFieldMappingsAt(f.name, fm)
	}
	for _, name := range append(textFields, allField) {
		fm := mapping.NewTextFieldMapping()
		fm.Store = false
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		fm.DocValues = false
		fm.Analyzer = textAnalyzer
		doc.AddFieldMappingsAt(name, fm)
	}
	for _, name := range numericFields { // as the terms of numeric.go
		fm := mapping.NewKeywordFieldMapping()
		fm.Store = false
		fm.IncludeInAll = false
		fm.DocValues = false
		fm.Analyzer = keyword.Name
		doc.AddFieldMappingsAt(name, fm)
	}
	// Time is indexed as sortField and bucketField (see timerange.go);
	// query-string ranges on "time" are rewritten to them.
	for _, f := range []struct {
		name string
		dv   bool
	}{{sortField, true}, {bucketField, false}} {
		fm := mapping.NewKeywordFieldMapping()
		fm.Store = false
		fm.IncludeInAll = false
		fm.DocValues = f.dv
		fm.Analyzer = keyword.Name
		doc.AddFieldMappingsAt(f.name, fm)
	}
	src := mapping.NewTextFieldMapping()
	src.Index = false
	src.Store = true
	src.IncludeInAll = false
	src.DocValues = false
	doc.AddFieldMappingsAt(sourceField, src)
	doc.AddFieldMappingsAt(rawField, src)
	im.DefaultMapping = doc
	return im, im.Validate()
}

// isKeyword reports an exact-match field.
func isKeyword(field string) bool {
	for _, f := range keywordFields {
		if f.name == field {
			return true
		}
	}
	return false
}
