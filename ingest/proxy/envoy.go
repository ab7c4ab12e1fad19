package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// envoy parses Envoy JSON access logs with the field sets of the control
// planes (Envoy has no default JSON format): Istio's keys (path, authority,
// request_id, x_forwarded_for) and Envoy Gateway's (x-envoy-origin-path,
// :authority, x-request-id, x-forwarded-for), in any order. Old Envoy
// renders every value as a string with "-" for unset, new Envoy numbers and
// null; both give the same event. START_TIME is the request's start.
type envoy struct{}

// NewEnvoy returns the parser for Envoy JSON access logs.
func NewEnvoy() parse.Parser { return envoy{} }

func (envoy) Format() string         { return "envoy" }
func (envoy) Source() string         { return evidence.SourceProxy }
func (envoy) Framing() parse.Framing { return parse.JSON }

// envoyRecord holds one access-log record; pairs of fields are the Istio
// and Envoy Gateway names of the same command operator.
type envoyRecord struct {
	StartTime      parse.Flex `json:"start_time"`
	Method         parse.Flex `json:"method"`
	Path           parse.Flex `json:"path"`
	OriginPath     parse.Flex `json:"x-envoy-origin-path"`
	Protocol       parse.Flex `json:"protocol"`
	ResponseCode   parse.Flex `json:"response_code"`
	ResponseFlags  parse.Flex `json:"response_flags"`
	Details        parse.Flex `json:"response_code_details"`
	TermDetails    parse.Flex `json:"connection_termination_details"`
	BytesReceived  parse.Flex `json:"bytes_received"`
	BytesSent      parse.Flex `json:"bytes_sent"`
	Duration       parse.Flex `json:"duration"` // milliseconds from start_time
	RequestID      parse.Flex `json:"request_id"`
	XRequestID     parse.Flex `json:"x-request-id"`
	Authority      parse.Flex `json:"authority"`
	ColonAuthority parse.Flex `json:":authority"`
	UpstreamHost   parse.Flex `json:"upstream_host"`
	Downstream     parse.Flex `json:"downstream_remote_address"`
	SNI            parse.Flex `json:"requested_server_name"`
	RouteName      parse.Flex `json:"route_name"`
	UserAgent      parse.Flex `json:"user_agent"`
	UserAgentKey   parse.Flex `json:"user-agent"`
}

// Sniff accepts a record that parses and has the keys every control
// plane's default set has: start_time, response_code, and one of the
// response flags, the addresses or the byte counts.
func (p envoy) Sniff(rec []byte) bool {
	var m map[string]json.RawMessage
	if parse.Unmarshal(rec, &m) != nil {
		return false
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := m[k]; ok {
				return true
			}
		}
		return false
	}
	if !has("start_time") || !has("response_code") ||
		!has("response_flags", "downstream_remote_address", "upstream_host", "bytes_sent") {
		return false
	}
	_, err := p.Parse(parse.Record{Data: rec})
	return err == nil
}

func (envoy) Parse(rec parse.Record) ([]evidence.Event, error) {
	var r envoyRecord
	if err := parse.Unmarshal(rec.Data, &r); err != nil {
		if isEnvoyAppLog(rec.Data) {
			return nil, errors.New("envoy application log line, not an access-log record")
		}
		return nil, fmt.Errorf("not an envoy JSON access-log record: %w", err)
	}
	ev, err := r.event()
	if err != nil {
		return nil, err
	}
	return []evidence.Event{ev}, nil
}

// event normalizes a record, from JSON or from a text line.
func (r *envoyRecord) event() (evidence.Event, error) {
	start := r.StartTime.String()
	if start == "" {
		return evidence.Event{}, errors.New("envoy record has no start_time")
	}
	t, err := envoyTime(start)
	if err != nil {
		return evidence.Event{}, err
	}
	status := ""
	if code := r.ResponseCode.String(); code != "" {
		var ok bool
		if status, ok = httpStatus(code); !ok {
			return evidence.Event{}, fmt.Errorf("response_code %q: want an HTTP status", clip(code))
		}
	}
	method := r.Method.String()
	path := firstFlex(r.Path, r.OriginPath)
	authority := firstFlex(r.Authority, r.ColonAuthority)
	flags := nonEmpty(strings.Split(r.ResponseFlags.String(), ",")...)
	details := r.Details.String()
	var num parse.Numbers
	ev := evidence.Event{
		Time: t, Kind: evidence.KindNetRequest, Method: method, Status: status,
		URL: envoyURL(authority, path), Tags: flags, Policy: r.RouteName.String(),
		TraceID:    firstFlex(r.RequestID, r.XRequestID),
		BytesIn:    num.Count("bytes_sent", r.BytesSent),
		BytesOut:   num.Count("bytes_received", r.BytesReceived),
		DurationMS: num.Duration("duration", r.Duration),
		UserAgent:  firstFlex(r.UserAgent, r.UserAgentKey),
	}
	// A TCP proxy record has no method, no path and response code 0.
	http := method != "" || path != "" || (status != "" && status != "000")
	if !http {
		ev.Kind, ev.Status = evidence.KindNetConnect, ""
	}
	if host, port := num.HostPort("downstream_remote_address", r.Downstream.String()); parse.IsIP(host) {
		ev.SrcIP, ev.SrcPort = host, port
	}
	upstream := r.UpstreamHost.String()
	if _, rest, ok := strings.Cut(upstream, "://"); ok {
		upstream = rest // older text logs: "tcp://10.0.2.1:80"
	}
	if host, port := num.HostPort("upstream_host", upstream); parse.IsIP(host) {
		ev.DstIP, ev.DstPort = host, port
	}
	host, port := num.HostPort("authority", authority)
	if host == "" {
		host, _ = parse.SplitHostPort(r.SNI.String())
	}
	ev.DstHost = strings.ToLower(host)
	if ev.DstPort == 0 {
		ev.DstPort = port
	}
	ev.Decision = envoyDecision(flags, details, r.TermDetails.String(), ev.Status, ev.DstIP != "" || upstream != "")
	if details == "via_upstream" {
		details = ""
	}
	target := ev.URL
	if target == "" {
		target = parse.HostPort(ev.DstHost, ev.DstIP, ev.DstPort)
	}
	verb := method
	if !http {
		verb = "TCP"
	}
	outcome := parse.Message(ev.Status, strings.Join(flags, ","), details)
	if outcome != "" {
		outcome = "-> " + outcome
	}
	ev.Message = parse.Message(verb, target, outcome)
	if err := num.Err(); err != nil {
		return evidence.Event{}, err
	}
	return ev, nil
}

// envoyDecision: UAEX, RL and a "denied" detail (ext_authz_denied,
// rbac_access_denied_matched_policy[...]) are a control refusing; an
// ext_authz error, flags of failed connections, resets and timeouts, no
// response at all, or a 5xx Envoy made itself are errors.
func envoyDecision(flags []string, details, term, status string, upstream bool) string {
	// A failing ext_authz service also sets UAEX: the control broke
	// (closed), it did not judge the request.
	if strings.Contains(details, "ext_authz_error") {
		return evidence.DecisionError
	}
	for _, f := range flags {
		if f == "UAEX" || f == "RL" {
			return evidence.DecisionDeny
		}
	}
	if strings.Contains(details, "denied") || strings.Contains(term, "denied") ||
		status == "403" && strings.Contains(details, "ext_authz") {
		return evidence.DecisionDeny
	}
	for _, f := range flags {
		if envoyErrorFlag(f) {
			return evidence.DecisionError
		}
	}
	fromEnvoy := details != "" && details != "via_upstream" || details == "" && !upstream
	if status == "000" || strings.HasPrefix(status, "5") && fromEnvoy {
		return evidence.DecisionError
	}
	return evidence.DecisionAllow
}

// envoyErrorFlag reports a response flag of a request that failed: every
// flag but DI (delay injected), RL and UAEX (decisions, above).
func envoyErrorFlag(f string) bool {
	switch f {
	case "UH", "UF", "UO", "NR", "URX", "NC", "DT", "DC", "LH", "UT", "LR", "UR", "UC",
		"FI", "RLSE", "IH", "SI", "DPE", "UPE", "UMSDR", "OM", "DF", "DO", "DR", "UDO":
		return true
	}
	return false
}

// envoyURL is the request target: an absolute-form path as it is, else the
// authority and path ("host:443" for CONNECT, as Squid logs it).
func envoyURL(authority, path string) string {
	if strings.Contains(path, "://") || authority == "" {
		return path
	}
	return authority + path
}

// envoyTime parses START_TIME in its default rendering (RFC 3339 with
// milliseconds) or as epoch seconds (%START_TIME(%s.%3f)%).
func envoyTime(s string) (time.Time, error) {
	if t, err := parse.RFC3339(s); err == nil && t.Year() >= 1970 && t.Year() <= 9999 {
		return t, nil
	}
	if t, err := epochTime(s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("start_time %q: want RFC 3339 or epoch seconds", clip(s))
}

// isEnvoyAppLog reports a line of Envoy's own log ("[2024-05-01
// 10:00:00.123][14][warning][config] ..."), which shares stdout with access
// logs.
func isEnvoyAppLog(b []byte) bool {
	s := string(b)
	return len(s) > 26 && s[0] == '[' && s[11] == ' ' && s[24] == ']' && s[25] == '['
}

func firstFlex(vals ...parse.Flex) string {
	for _, v := range vals {
		if s := v.String(); s != "" {
			return s
		}
	}
	return ""
}
