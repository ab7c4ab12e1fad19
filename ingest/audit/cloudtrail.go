package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// FormatCloudTrail is the format name of AWS CloudTrail records.
const FormatCloudTrail = "cloudtrail"

// cloudTrail parses CloudTrail records: the {"Records":[…]} files a trail
// delivers to S3, single records as CloudTrail Lake and the console
// export them, and the EventBridge envelope ("AWS API Call via
// CloudTrail") that carries one in its detail. Every record is an event;
// runs of routine calls in a Records file are tagged (see tagRoutine).
type cloudTrail struct{}

// NewCloudTrail returns the CloudTrail parser.
func NewCloudTrail() parse.Parser { return cloudTrail{} }

func (cloudTrail) Format() string         { return FormatCloudTrail }
func (cloudTrail) Source() string         { return evidence.SourceAudit }
func (cloudTrail) Framing() parse.Framing { return parse.JSON }

// recordsStart is how a delivered file begins; a file larger than the
// sniffing window is recognized by its start alone.
var recordsStart = regexp.MustCompile(`^\s*\{\s*"Records"\s*:\s*\[\s*(\{|\])`)

// Sniff wants a Records file, or one record with CloudTrail's own
// fields (eventVersion, eventSource, eventName, eventTime), bare or in an
// EventBridge envelope.
func (cloudTrail) Sniff(rec []byte) bool {
	var probe struct {
		Records    json.RawMessage `json:"Records"`
		DetailType string          `json:"detail-type"`
		Detail     *trailRecord    `json:"detail"`
		trailRecord
	}
	if parse.Unmarshal(rec, &probe) != nil {
		return recordsStart.Match(rec)
	}
	switch {
	case len(probe.Records) > 0:
		return bytes.HasPrefix(bytes.TrimSpace(probe.Records), []byte("["))
	case probe.Detail != nil:
		return strings.HasSuffix(probe.DetailType, "via CloudTrail") && probe.Detail.looksLike()
	}
	return probe.looksLike()
}

// trailRecord is the part of a CloudTrail record cordon reads.
type trailRecord struct {
	EventVersion string `json:"eventVersion"`
	UserIdentity struct {
		Type           string `json:"type"`
		PrincipalID    string `json:"principalId"`
		ARN            string `json:"arn"`
		AccessKeyID    string `json:"accessKeyId"`
		UserName       string `json:"userName"`
		InvokedBy      string `json:"invokedBy"`
		SessionContext struct {
			SessionIssuer struct {
				ARN string `json:"arn"`
			} `json:"sessionIssuer"`
		} `json:"sessionContext"`
	} `json:"userIdentity"`
	EventTime         string          `json:"eventTime"`
	EventSource       string          `json:"eventSource"`
	EventName         string          `json:"eventName"`
	AWSRegion         string          `json:"awsRegion"`
	SourceIPAddress   string          `json:"sourceIPAddress"`
	UserAgent         string          `json:"userAgent"`
	ErrorCode         string          `json:"errorCode"`
	ErrorMessage      string          `json:"errorMessage"`
	ReadOnly          *bool           `json:"readOnly"`
	RequestParameters json.RawMessage `json:"requestParameters"`
}

func (r *trailRecord) looksLike() bool {
	return r.EventVersion != "" && r.EventSource != "" && r.EventName != "" && r.EventTime != ""
}

func (p cloudTrail) Parse(rec parse.Record) ([]evidence.Event, error) {
	if calls, ok := trailRecordsFast(rec.Data); ok {
		if len(calls) == 0 {
			return nil, parse.ErrSkip // CloudTrail writes empty files too
		}
		return tagRoutine(calls), nil
	}
	return p.parseSlow(rec)
}

// parseSlow reads any of the forms record by record, and says which
// record of a Records file does not parse.
func (p cloudTrail) parseSlow(rec parse.Record) ([]evidence.Event, error) {
	var env struct {
		Records *[]json.RawMessage `json:"Records"`
		Detail  json.RawMessage    `json:"detail"`
	}
	if err := parse.Unmarshal(rec.Data, &env); err != nil {
		return nil, fmt.Errorf("not a cloudtrail record: %w", err)
	}
	var raws []json.RawMessage
	switch {
	case env.Records != nil:
		raws = *env.Records
		if len(raws) == 0 {
			return nil, parse.ErrSkip
		}
	case len(env.Detail) > 0 && env.Detail[0] == '{':
		raws = []json.RawMessage{env.Detail}
	default:
		raws = []json.RawMessage{rec.Data}
	}
	calls := make([]call, 0, len(raws))
	for i, raw := range raws {
		ev, err := trailEvent(raw)
		if err != nil {
			if env.Records != nil {
				return nil, fmt.Errorf("record %d of %d: %w", i+1, len(raws), err)
			}
			return nil, err
		}
		c := call{ev: ev, key: trailRoutineKey(&ev)}
		if env.Records != nil {
			c.raw = raw // else the record is the whole of it
		}
		calls = append(calls, c)
	}
	return tagRoutine(calls), nil
}

// trailRecordsFast reads a Records file in one decoding pass, and its
// records' bytes by a split of the array: a delivered file is one JSON
// value of thousands of records, read three times otherwise. It gives up
// (false) on anything but a Records file whose every record normalizes,
// for the slow path to say which record is wrong.
func trailRecordsFast(data []byte) ([]call, bool) {
	if !recordsStart.Match(data[:min(len(data), 64)]) {
		return nil, false
	}
	var env struct {
		Records []trailRecord `json:"Records"`
	}
	if parse.Unmarshal(data, &env) != nil {
		return nil, false
	}
	raws := splitRecords(data)
	if len(raws) != len(env.Records) {
		return nil, false
	}
	calls := make([]call, 0, len(raws))
	for i := range env.Records {
		ev, err := trailNormalize(&env.Records[i])
		if err != nil {
			return nil, false
		}
		calls = append(calls, call{ev: ev, raw: raws[i], key: trailRoutineKey(&ev)})
	}
	return calls, true
}

// splitRecords returns the bytes of each element of the Records array of
// a valid JSON object, by depth and string state alone. A "Records" key
// deeper in the object (none in CloudTrail's) would be taken for the
// array: the caller checks the count against the decoded records. It
// gives nil when anything but the object's end follows the array.
func splitRecords(data []byte) []json.RawMessage {
	i := bytes.Index(data, []byte(`"Records"`))
	if i < 0 {
		return nil
	}
	j := bytes.IndexByte(data[i:], '[')
	if j < 0 {
		return nil
	}
	var out []json.RawMessage
	depth, start, inStr, esc := 0, -1, false, false
	for k := i + j + 1; k < len(data); k++ {
		c := data[k]
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			if depth == 0 {
				start = k
			}
			depth++
		case c == '}' || c == ']':
			if depth == 0 { // the array's end
				if !bytes.Equal(bytes.TrimSpace(data[k+1:]), []byte("}")) {
					// More after it (a second Records key, which the
					// decoder takes instead): the slow path reads it.
					return nil
				}
				return out
			}
			depth--
			if depth == 0 {
				out = append(out, data[start:k+1])
			}
		}
	}
	return out
}

// trailEvent normalizes one record.
func trailEvent(raw json.RawMessage) (evidence.Event, error) {
	var r trailRecord
	if err := parse.Unmarshal(raw, &r); err != nil {
		return evidence.Event{}, fmt.Errorf("not a cloudtrail record: %w", err)
	}
	return trailNormalize(&r)
}

// trailNormalize turns a decoded record into its event.
func trailNormalize(rp *trailRecord) (evidence.Event, error) {
	r := *rp
	if r.EventName == "" || r.EventSource == "" {
		return evidence.Event{}, errors.New("cloudtrail record has no eventSource or eventName")
	}
	if r.EventTime == "" {
		return evidence.Event{}, errors.New("cloudtrail record has no eventTime")
	}
	t, err := parse.NonZeroTime(r.EventTime)
	if err != nil {
		return evidence.Event{}, err
	}
	u := &r.UserIdentity
	ev := evidence.Event{Time: t, Kind: evidence.KindAPICall, DstHost: r.EventSource, Method: r.EventName,
		Status: r.ErrorCode, User: parse.FirstOf(u.ARN, u.UserName, u.PrincipalID, u.InvokedBy), Host: r.AWSRegion}
	if u.AccessKeyID != "" {
		ev.Credential = []string{u.AccessKeyID}
	}
	// sourceIPAddress is an address, or the name of the AWS service that
	// made the call on the principal's behalf
	via := ""
	if parse.IsIP(r.SourceIPAddress) {
		ev.SrcIP = r.SourceIPAddress
	} else {
		via = r.SourceIPAddress
	}
	ev.Decision = trailDecision(r.ErrorCode)
	if trailCredRefused(r.ErrorCode) {
		ev.Tags = append(ev.Tags, credentials.TagCredRefused)
	}
	if trailReadOnly(&r) {
		ev.Tags = append(ev.Tags, tagReadOnly)
	}
	if id := trailRevokes(&r); id != "" {
		ev.Tags = append(ev.Tags, credentials.TagRevokes+id)
	}
	key := ""
	if u.AccessKeyID != "" {
		key = "(key " + u.AccessKeyID + ")"
	}
	ev.Message = parse.Message("aws "+r.EventSource, r.EventName, parse.Labelled("by", ev.User), key,
		parse.Labelled("from", ev.SrcIP), parse.Labelled("via", via), parse.Labelled("in", r.AWSRegion),
		parse.Labelled("->", r.ErrorCode), trailErrorText(r.ErrorMessage))
	return ev, nil
}

// tagReadOnly marks a call that only reads.
const tagReadOnly = "read-only"

func trailErrorText(msg string) string {
	if msg == "" {
		return ""
	}
	return "(" + parse.CutText(parse.OneLine(msg), 120) + ")"
}

// trailDecision: no error is allowed; an authorization or authentication
// failure is a denial; any other error an error.
func trailDecision(code string) string {
	switch {
	case code == "":
		return evidence.DecisionAllow
	case trailCredRefused(code) || strings.Contains(code, "AccessDenied") || strings.Contains(code, "Unauthorized") ||
		strings.Contains(code, "Forbidden"):
		return evidence.DecisionDeny
	}
	return evidence.DecisionError
}

// trailCredRefused are the errors AWS answers a request with when the key
// itself is no good: unknown, deleted or deactivated, expired.
func trailCredRefused(code string) bool {
	switch strings.TrimPrefix(code, "Client.") {
	case "InvalidClientTokenId", "InvalidAccessKeyId", "AuthFailure", "UnrecognizedClientException",
		"ExpiredToken", "ExpiredTokenException", "InvalidToken", "SignatureDoesNotMatch":
		return true
	}
	return false
}

// trailReadOnly is CloudTrail's readOnly, or for records before it
// (eventVersion 1.0-1.04) the verb of the call's name.
func trailReadOnly(r *trailRecord) bool {
	if r.ReadOnly != nil {
		return *r.ReadOnly
	}
	for _, v := range []string{"Describe", "List", "Get", "Head", "Lookup"} {
		if strings.HasPrefix(r.EventName, v) {
			return true
		}
	}
	return false
}

// trailRevokes is the access key a successful IAM call deleted or
// deactivated.
func trailRevokes(r *trailRecord) string {
	if r.EventSource != "iam.amazonaws.com" || r.ErrorCode != "" || len(r.RequestParameters) == 0 {
		return ""
	}
	var p struct {
		AccessKeyID string `json:"accessKeyId"`
		Status      string `json:"status"`
		UserName    string `json:"userName"`
	}
	if parse.Unmarshal(r.RequestParameters, &p) != nil {
		return ""
	}
	switch {
	case r.EventName == "DeleteAccessKey" || r.EventName == "UpdateAccessKey" && strings.EqualFold(p.Status, "Inactive"):
		return p.AccessKeyID
	case r.EventName == "DeleteLoginProfile" && p.UserName != "":
		// a user's console password, as the capability set names it
		return "console-login:" + p.UserName
	}
	return ""
}

// trailKeep are read-only calls never taken for routine: they read secrets
// or data, or ask who a key is (the first call made with a stolen one).
var trailKeep = map[string]bool{
	"GetSecretValue": true, "BatchGetSecretValue": true, "GetParameter": true, "GetParameters": true,
	"GetParametersByPath": true, "GetObject": true, "GetCallerIdentity": true, "GetSessionToken": true,
	"GetFederationToken": true, "GetPasswordData": true, "GetAuthorizationToken": true,
	"GetAccessKeyInfo": true, "GetRoleCredentials": true,
}

// trailRoutineKey groups routine calls of one identity from one place to
// one service; "" for a call that is not routine.
func trailRoutineKey(ev *evidence.Event) string {
	if ev.Decision != evidence.DecisionAllow || !hasTag(ev.Tags, tagReadOnly) || trailKeep[ev.Method] {
		return ""
	}
	for _, v := range []string{"Describe", "List", "Get", "Head", "Lookup"} {
		if strings.HasPrefix(ev.Method, v) {
			return strings.Join(append([]string{ev.User, ev.SrcIP, ev.DstHost}, ev.Credential...), "\x00")
		}
	}
	return ""
}

func hasTag(tags []string, t string) bool {
	for _, x := range tags {
		if x == t {
			return true
		}
	}
	return false
}
