package otlp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// parser parses OpenTelemetry traces in OTLP/JSON (one export request per
// line, as the Collector's file exporter writes, or pretty-printed) and reads
// the GenAI semantic conventions from their spans: agents, model calls, tool
// calls and guardrail decisions. Log exports are read too, as `other`.
type parser struct{}

// New returns the parser for OTLP/JSON trace (and log) exports.
func New() parse.Parser { return parser{} }

func (parser) Format() string         { return "otlp" }
func (parser) Source() string         { return evidence.SourceLedger }
func (parser) Framing() parse.Framing { return parse.JSON }

// Sniff wants a top-level resourceSpans or resourceLogs list, the envelope
// of an OTLP export request; metrics exports are not evidence here.
func (parser) Sniff(rec []byte) bool {
	var probe struct {
		ResourceSpans json.RawMessage `json:"resourceSpans"`
		ResourceLogs  json.RawMessage `json:"resourceLogs"`
	}
	if parse.Unmarshal(rec, &probe) != nil {
		return false
	}
	isList := func(v json.RawMessage) bool { v = bytes.TrimSpace(v); return len(v) > 0 && v[0] == '[' }
	return isList(probe.ResourceSpans) || isList(probe.ResourceLogs)
}

type otlpExport struct {
	ResourceSpans []struct {
		Resource   otlpResource `json:"resource"`
		ScopeSpans []struct {
			Spans []json.RawMessage `json:"spans"`
		} `json:"scopeSpans"`
		// The name before OTLP 0.15; some exporters still write it.
		Library []struct {
			Spans []json.RawMessage `json:"spans"`
		} `json:"instrumentationLibrarySpans"`
	} `json:"resourceSpans"`
	ResourceLogs []struct {
		Resource  otlpResource `json:"resource"`
		ScopeLogs []struct {
			LogRecords []json.RawMessage `json:"logRecords"`
		} `json:"scopeLogs"`
	} `json:"resourceLogs"`
}

type otlpResource struct {
	Attributes []otlpKV `json:"attributes"`
}

type otlpSpan struct {
	TraceID           string     `json:"traceId"`
	SpanID            string     `json:"spanId"`
	ParentSpanID      string     `json:"parentSpanId"`
	Name              string     `json:"name"`
	Kind              parse.Flex `json:"kind"`
	StartTimeUnixNano parse.Flex `json:"startTimeUnixNano"`
	EndTimeUnixNano   parse.Flex `json:"endTimeUnixNano"`
	Attributes        []otlpKV   `json:"attributes"`
	Events            []struct {
		TimeUnixNano parse.Flex `json:"timeUnixNano"`
		Name         string     `json:"name"`
		Attributes   []otlpKV   `json:"attributes"`
	} `json:"events"`
	Status struct {
		Code    parse.Flex `json:"code"`
		Message string     `json:"message"`
	} `json:"status"`

	attrs      otlpAttrs
	res        *otlpIdentity
	raw        json.RawMessage
	start, end time.Time
}

// otlpIdentity is what a resource says about where the agent runs.
type otlpIdentity struct {
	pod, container, host, ip, service string
	pid                               int
}

func identityOf(kvs []otlpKV, num *parse.Numbers) *otlpIdentity {
	a := attrsOf(kvs)
	id := &otlpIdentity{
		pod:       parse.PodName(a.str("k8s.namespace.name"), a.str("k8s.pod.name")),
		container: parse.ContainerID(a.str("container.id")),
		host:      a.str("host.name", "k8s.node.name"),
		service:   a.str("service.name"),
		pid:       num.Pid("process.pid", parse.Flex(a.str("process.pid"))),
	}
	for _, ip := range []string{a.first("k8s.pod.ip"), a.first("host.ip")} {
		if id.ip == "" && parse.IsIP(ip) {
			id.ip = ip
		}
	}
	return id
}

// apply puts the resource's identity on an event (its address only on
// identity events, as a ledger session_start carries it).
func (id *otlpIdentity) apply(ev *evidence.Event) {
	ev.Pod, ev.Container, ev.Host, ev.Pid = id.pod, id.container, id.host, id.pid
	if id.service != "" {
		ev.Tags = append(ev.Tags, "service:"+id.service)
	}
	if ev.Kind == evidence.KindSessionStart {
		ev.SrcIP = id.ip
	}
}

func (parser) Parse(rec parse.Record) ([]evidence.Event, error) {
	var x otlpExport
	if err := parse.Unmarshal(rec.Data, &x); err != nil {
		return nil, fmt.Errorf("not an OTLP/JSON export: %w", err)
	}
	if x.ResourceSpans == nil && x.ResourceLogs == nil {
		return nil, errors.New("OTLP export has no resourceSpans or resourceLogs")
	}
	var spans []*otlpSpan
	var num parse.Numbers
	for _, rs := range x.ResourceSpans {
		id := identityOf(rs.Resource.Attributes, &num)
		scopes := rs.ScopeSpans
		for _, l := range rs.Library {
			scopes = append(scopes, struct {
				Spans []json.RawMessage `json:"spans"`
			}{l.Spans})
		}
		for _, ss := range scopes {
			for _, raw := range ss.Spans {
				sp, err := readSpan(raw, id)
				if err != nil {
					return nil, err
				}
				spans = append(spans, sp)
			}
		}
	}
	evs := spanEvents(spans, &num)
	for _, rl := range x.ResourceLogs {
		id := identityOf(rl.Resource.Attributes, &num)
		for _, sl := range rl.ScopeLogs {
			for _, raw := range sl.LogRecords {
				ev, err := logEvent(raw, id)
				if err != nil {
					return nil, err
				}
				evs = append(evs, ev)
			}
		}
	}
	if err := num.Err(); err != nil {
		return nil, err
	}
	if len(evs) == 0 {
		return nil, parse.ErrSkip
	}
	return evs, nil
}

func readSpan(raw json.RawMessage, id *otlpIdentity) (*otlpSpan, error) {
	sp := &otlpSpan{res: id, raw: raw}
	if err := parse.Unmarshal(raw, sp); err != nil {
		return nil, fmt.Errorf("span is not OTLP/JSON: %w", err)
	}
	sp.TraceID, sp.SpanID, sp.ParentSpanID = otlpID(sp.TraceID, 16), otlpID(sp.SpanID, 8), otlpID(sp.ParentSpanID, 8)
	sp.attrs = attrsOf(sp.Attributes)
	sp.start, sp.end = unixNano(sp.StartTimeUnixNano), unixNano(sp.EndTimeUnixNano)
	if sp.start.IsZero() {
		sp.start = sp.end
	}
	if sp.start.IsZero() {
		return nil, fmt.Errorf("span %q (%s) has no startTimeUnixNano or endTimeUnixNano", sp.Name, parse.OrNone(sp.SpanID))
	}
	return sp, nil
}

// logEvent is one log record: kept as `other`, with its trace link. The
// body of a gen_ai.* event is message content, so only its name is indexed.
func logEvent(raw json.RawMessage, id *otlpIdentity) (evidence.Event, error) {
	var lr struct {
		TimeUnixNano         parse.Flex `json:"timeUnixNano"`
		ObservedTimeUnixNano parse.Flex `json:"observedTimeUnixNano"`
		SeverityText         string     `json:"severityText"`
		Body                 otlpValue  `json:"body"`
		Attributes           []otlpKV   `json:"attributes"`
		TraceID              string     `json:"traceId"`
		SpanID               string     `json:"spanId"`
		EventName            string     `json:"eventName"`
	}
	if err := parse.Unmarshal(raw, &lr); err != nil {
		return evidence.Event{}, fmt.Errorf("log record is not OTLP/JSON: %w", err)
	}
	t := unixNano(lr.TimeUnixNano)
	if t.IsZero() {
		t = unixNano(lr.ObservedTimeUnixNano)
	}
	if t.IsZero() {
		return evidence.Event{}, errors.New("log record has no timeUnixNano or observedTimeUnixNano")
	}
	name := parse.FirstOf(lr.EventName, attrsOf(lr.Attributes).str("event.name"))
	ev := evidence.Event{Time: t, Kind: evidence.KindOther, Severity: strings.ToLower(lr.SeverityText),
		TraceID: otlpID(lr.TraceID, 16), SpanID: otlpID(lr.SpanID, 8), Tags: []string{"log"}, Raw: string(raw)}
	id.apply(&ev)
	body := parse.CutText(parse.OneLine(lr.Body.text()), 300)
	if strings.HasPrefix(name, "gen_ai.") {
		body = ""
	}
	ev.Message = parse.Message("log", name, body)
	return ev, nil
}
