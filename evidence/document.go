package evidence

import (
	"encoding/json"
	"strconv"
	"strings"

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

func (b docBuilder) build(ev *Event) (*document.Document, error) {
	doc := document.NewDocument(ev.ID)
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
	doc.AddField(keywords(sortField, sortOpts, sortKey(ev.Time, ev.ID)))
	doc.AddField(keywords(bucketField, kwOpts, timeBuckets(ev.Time)...))

	kw := func(name, v string, facet bool) {
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
		for _, v := range vs {
			if v != "" {
				terms = append(terms, v)
			}
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
	kw("id", ev.ID, false)
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

	text := func(name, v string) {
		if v != "" {
			doc.AddField(b.textField(name, v))
		}
	}
	text("message", ev.Message)
	text("cmdline", ev.Cmdline)
	text("url", ev.URL)
	text("path", ev.Path)
	raw := ev.Raw
	if len(raw) > maxAllRaw {
		raw = raw[:maxAllRaw]
	}
	raw = RawText(raw)
	text(allField, strings.Join([]string{ev.Message, ev.Cmdline, ev.URL, ev.Path, ev.DstHost, raw}, " \n "))

	for _, n := range []struct {
		name string
		v    int64
	}{{"bytes_out", ev.BytesOut}, {"bytes_in", ev.BytesIn}} {
		if n.v != 0 {
			f := document.NewNumericFieldWithIndexingOptions(n.name, nil, float64(n.v), index.IndexField)
			f.Analyze()
			doc.AddField(analyzed{f})
		}
	}
	return doc, nil
}
