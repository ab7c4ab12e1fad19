package evidence

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// sourceField stores the event (with origin, without raw) as JSON and
// rawField the raw record as it is; both are stored, never indexed.
const (
	sourceField = "_source"
	rawField    = "_raw"
)

// maxAllRaw bounds how much raw text feeds the catch-all field: hostile
// records can be megabytes, and a bare word rarely needs more than the start.
const maxAllRaw = 8 << 10

// MaxIndexed bounds the indexed copy of a text field (message, cmdline,
// url, path), and MaxKeyword that of a keyword value, each value of a
// list field, and all of a list's values together. Log data is written by
// the agent under investigation: a 7 MiB URL, analysed and written into a
// segment, cost an ingest hundreds of megabytes. The stored event keeps
// every field whole and names the ones cut in Cut; only what a query can
// find is cut.
const (
	MaxIndexed = 64 << 10
	MaxKeyword = 4 << 10
)

// docBuilder turns Events into Bleve documents directly, skipping the
// reflection walk of the generic mapping, and analyses them itself (see
// field), so that the work can run ahead of the batch that indexes them.
type docBuilder struct {
	text analysis.Analyzer
}

func newDocBuilder(im *mapping.IndexMappingImpl) docBuilder {
	return docBuilder{text: im.AnalyzerNamed(textAnalyzer)}
}

const (
	kwOpts    = index.IndexField
	facetOpts = index.IndexField | index.DocValues
	textOpts  = index.IndexField
	// The sort key's doc value is read at random by time filters: one
	// uncompressed value per chunk makes that a lookup, not a decompression.
	sortOpts = facetOpts | index.SkipDVChunking | index.SkipDVCompression
)

// build makes ev's document, and sets ev.Cut to the fields whose indexed
// copy it cut.
func (b docBuilder) build(ev *Event) (*document.Document, error) {
	doc := document.NewDocument(ev.ID)
	ev.Cut = nil
	cutAt := func(name, v string, n int) string {
		if len(v) <= n {
			return v
		}
		ev.Cut = append(ev.Cut, name)
		return prefix(v, n)
	}
	indexed := func(name, v string) string { return cutAt(name, v, MaxIndexed) }
	doc.AddField(keywords(sortField, sortOpts, sortKey(ev.Time, ev.ID)))
	doc.AddField(keywords(bucketField, kwOpts, timeBuckets(ev.Time)...))

	kw := func(name, v string, facet bool) {
		v = cutAt(name, v, MaxKeyword)
		if v == "" {
			return
		}
		opts := kwOpts
		if facet {
			opts = facetOpts
		}
		doc.AddField(keywords(name, opts, v))
	}
	num := func(name string, v int, facet bool) {
		if v != 0 {
			kw(name, strconv.Itoa(v), facet)
		}
	}
	list := func(name string, vs []string, facet bool) {
		var terms []string
		budget, cut := MaxIndexed, false
		for _, v := range vs {
			if v == "" {
				continue
			}
			if budget == 0 {
				cut = true
				break
			}
			if len(v) > MaxKeyword || len(v) > budget {
				cut = true
				v = prefix(v, min(MaxKeyword, budget))
			}
			if v != "" {
				terms = append(terms, v)
				budget -= len(v)
			}
		}
		if cut {
			ev.Cut = append(ev.Cut, name)
		}
		if len(terms) == 0 {
			return
		}
		opts := kwOpts
		if facet {
			opts = facetOpts
		}
		doc.AddField(keywords(name, opts, terms...))
	}
	// The id is searched in the _id field Bleve gives every document.
	kw("source", ev.Source, true)
	kw("format", ev.Format, true)
	kw("kind", ev.Kind, true)
	kw("agent", ev.Agent, true)
	kw("attributed_via", ev.AttributedVia, true)
	kw("run", ev.Run, true)
	kw("session", ev.Session, true)
	kw("sandbox", ev.Sandbox, true)
	kw("model", ev.Model, true)
	kw("objective", ev.Objective, false)
	kw("tool", ev.Tool, true)
	kw("decision", ev.Decision, true)
	kw("policy", ev.Policy, true)
	kw("severity", ev.Severity, true)
	list("tags", ev.Tags, true)
	kw("src_ip", ev.SrcIP, true)
	num("src_port", ev.SrcPort, false)
	kw("dst_host", strings.ToLower(ev.DstHost), true)
	kw("dst_ip", ev.DstIP, true)
	num("dst_port", ev.DstPort, true)
	kw("method", ev.Method, true)
	kw("status", ev.Status, true)
	num("pid", ev.Pid, false)
	num("ppid", ev.Ppid, false)
	kw("user", ev.User, true)
	kw("host", ev.Host, true)
	kw("user_agent", ev.UserAgent, true)
	kw("parent_exe", ev.ParentExe, true)
	kw("parent_cmdline", ev.ParentCmdline, false)
	kw("cwd", ev.Cwd, false)
	kw("call_id", ev.CallID, false)
	kw("exec_id", ev.ExecID, false)
	kw("parent_exec_id", ev.ParentExecID, false)
	kw("trace_id", ev.TraceID, false)
	kw("span_id", ev.SpanID, false)
	kw("container", ev.Container, true)
	kw("pod", ev.Pod, true)
	list("credential", ev.Credential, true)
	list("tools_allowed", ev.ToolsAllowed, false)
	list("egress_allowlist", ev.EgressAllowlist, false)

	var words []index.TokenFrequencies // of the text fields, which a bare word also searches
	text := func(name, v string) {
		if v != "" {
			f := b.textField(name, v)
			words = append(words, f.freqs)
			doc.AddField(f)
		}
	}
	text("message", indexed("message", ev.Message))
	text("cmdline", indexed("cmdline", ev.Cmdline))
	text("url", indexed("url", ev.URL))
	text("path", indexed("path", ev.Path))
	raw := ev.Raw
	if len(raw) > maxAllRaw {
		raw = raw[:maxAllRaw]
	}
	all := b.textField(allField, prefix(ev.DstHost, MaxIndexed)+" \n "+RawText(raw))
	if all.without(words) {
		doc.AddField(all)
	}

	for _, n := range []struct {
		name string
		v    int64
	}{{"bytes_out", ev.BytesOut}, {"bytes_in", ev.BytesIn}, {"duration_ms", ev.DurationMS}} {
		if n.v != 0 {
			doc.AddField(keywords(n.name, kwOpts, numTerms(n.v)...))
		}
	}
	list("cut", ev.Cut, false)

	// The stored copy comes last: it says what was cut.
	fields := *ev
	fields.Raw = ""
	src, err := json.Marshal(&fields)
	if err != nil {
		return nil, err
	}
	doc.AddField(&field{name: sourceField, value: src, opts: index.StoreField})
	if ev.Raw != "" {
		doc.AddField(&field{name: rawField, value: []byte(ev.Raw), opts: index.StoreField})
	}
	return doc, nil
}

// prefix is the longest start of s of at most n bytes that does not split
// a UTF-8 sequence.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
