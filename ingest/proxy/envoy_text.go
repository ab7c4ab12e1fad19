package proxy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// envoyText parses Envoy's default text access log, one line per request:
//
//	[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%"
//	%RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION%
//	%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%"
//	"%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"
//
// (wrapped here as in Envoy's docs), and Istio's longer text defaults,
// which add the response details, the cluster, the addresses and the route.
// Envoy does not escape quotes inside quoted fields, so a quoted field ends
// at a quote followed by a space or the end of the line; a User-Agent that
// breaks that rule makes the line a reject, with the raw line kept.
type envoyText struct{}

// NewEnvoyText returns the parser for Envoy's (and Istio's) default text access log.
func NewEnvoyText() parse.Parser { return envoyText{} }

func (envoyText) Format() string         { return "envoy-text" }
func (envoyText) Source() string         { return evidence.SourceProxy }
func (envoyText) Framing() parse.Framing { return parse.Lines }

// Sniff accepts a line that parses: "[time] " first, then the field count
// of a known layout.
func (p envoyText) Sniff(rec []byte) bool {
	_, err := p.Parse(parse.Record{Data: rec})
	return err == nil
}

func (envoyText) Parse(rec parse.Record) ([]evidence.Event, error) {
	r, err := parseEnvoyText(string(rec.Data))
	if err != nil {
		return nil, err
	}
	ev, err := r.event()
	if err != nil {
		return nil, err
	}
	return []evidence.Event{ev}, nil
}

// parseEnvoyText reads a text line into the fields the JSON parser knows.
func parseEnvoyText(line string) (*envoyRecord, error) {
	if isEnvoyAppLog([]byte(line)) {
		return nil, errors.New("envoy application log line, not an access-log record")
	}
	ts, rest, ok := strings.Cut(strings.TrimPrefix(line, "["), "] ")
	if !strings.HasPrefix(line, "[") || !ok {
		return nil, errors.New("line does not start with [START_TIME]: not an envoy access-log line, or the second half of a wrapped one")
	}
	if _, err := parse.RFC3339(ts); err != nil {
		return nil, fieldErr(1, ts, "[START_TIME] in RFC 3339")
	}
	f, err := envoyTextFields(rest)
	if err != nil {
		return nil, err
	}
	layout := envoyTextLayout(len(f))
	if layout == nil {
		return nil, fmt.Errorf("envoy-text line has %d fields after [START_TIME], want 12 (Envoy default) or 20/21 (Istio default); a line cut in two?", len(f))
	}
	reqLine := strings.Split(f[0], " ")
	if len(reqLine) != 3 {
		return nil, fieldErr(2, f[0], `"METHOD PATH PROTOCOL"`)
	}
	r := &envoyRecord{StartTime: parse.Flex(ts), Method: parse.Flex(reqLine[0]), Path: parse.Flex(reqLine[1]), Protocol: parse.Flex(reqLine[2])}
	for i, name := range layout {
		if p := r.textField(name); p != nil {
			*p = parse.Flex(f[i])
		}
	}
	if code := r.ResponseCode.String(); code != "" && !isDigits(code) {
		return nil, fieldErr(3, code, "response code")
	}
	return r, nil
}

// envoyTextLayout names the fields of a text line by how many it has: the
// Envoy default, Istio 1.3-1.8 and Istio 1.9+. Unnamed fields are unused.
func envoyTextLayout(n int) []string {
	switch n {
	case 12:
		return []string{"request", "response_code", "response_flags", "bytes_received", "bytes_sent",
			"", "", "", "user_agent", "request_id", "authority", "upstream_host"}
	case 20:
		return []string{"request", "response_code", "response_flags", "", "", "bytes_received", "bytes_sent",
			"", "", "", "user_agent", "request_id", "authority", "upstream_host",
			"", "", "", "downstream_remote_address", "requested_server_name", "route_name"}
	case 21:
		return []string{"request", "response_code", "response_flags", "response_code_details",
			"connection_termination_details", "", "bytes_received", "bytes_sent",
			"", "", "", "user_agent", "request_id", "authority", "upstream_host",
			"", "", "", "downstream_remote_address", "requested_server_name", "route_name"}
	}
	return nil
}

func (r *envoyRecord) textField(name string) *parse.Flex {
	switch name {
	case "response_code":
		return &r.ResponseCode
	case "response_flags":
		return &r.ResponseFlags
	case "response_code_details":
		return &r.Details
	case "connection_termination_details":
		return &r.TermDetails
	case "bytes_received":
		return &r.BytesReceived
	case "bytes_sent":
		return &r.BytesSent
	case "request_id":
		return &r.RequestID
	case "authority":
		return &r.Authority
	case "upstream_host":
		return &r.UpstreamHost
	case "downstream_remote_address":
		return &r.Downstream
	case "requested_server_name":
		return &r.SNI
	case "route_name":
		return &r.RouteName
	case "user_agent":
		return &r.UserAgent
	}
	return nil
}

// envoyTextFields splits the rest of a line into bare words and quoted
// fields, quotes removed.
func envoyTextFields(s string) ([]string, error) {
	var out []string
	for {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return out, nil
		}
		if s[0] != '"' {
			end := strings.IndexByte(s, ' ')
			if end < 0 {
				end = len(s)
			}
			out = append(out, s[:end])
			s = s[end:]
			continue
		}
		end := -1
		for i := 1; i < len(s); i++ {
			if s[i] == '"' && (i+1 == len(s) || s[i+1] == ' ') {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, fieldErr(len(out)+2, s, "a closing quote")
		}
		out = append(out, s[1:end])
		s = s[end+1:]
	}
}
