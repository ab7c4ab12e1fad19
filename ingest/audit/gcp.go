package audit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// FormatGCPAudit is the format name of Google Cloud Audit Logs entries.
const FormatGCPAudit = "gcp-audit"

// auditLogType is the protoPayload type of a Cloud Audit Logs entry.
const auditLogType = "type.googleapis.com/google.cloud.audit.AuditLog"

// gcpAudit parses Cloud Audit Logs entries (LogEntry with an AuditLog
// protoPayload) as Logging exports them: one per line, or an array.
type gcpAudit struct{}

// NewGCPAudit returns the Google Cloud audit log parser.
func NewGCPAudit() parse.Parser { return gcpAudit{} }

func (gcpAudit) Format() string         { return FormatGCPAudit }
func (gcpAudit) Source() string         { return evidence.SourceAudit }
func (gcpAudit) Framing() parse.Framing { return parse.JSON }

type gcpEntry struct {
	LogName          string `json:"logName"`
	Timestamp        string `json:"timestamp"`
	ReceiveTimestamp string `json:"receiveTimestamp"`
	ProtoPayload     *struct {
		Type               string `json:"@type"`
		ServiceName        string `json:"serviceName"`
		MethodName         string `json:"methodName"`
		ResourceName       string `json:"resourceName"`
		AuthenticationInfo struct {
			PrincipalEmail        string `json:"principalEmail"`
			PrincipalSubject      string `json:"principalSubject"`
			ServiceAccountKeyName string `json:"serviceAccountKeyName"`
			Delegation            []struct {
				FirstParty struct {
					PrincipalEmail string `json:"principalEmail"`
				} `json:"firstPartyPrincipal"`
			} `json:"serviceAccountDelegationInfo"`
		} `json:"authenticationInfo"`
		RequestMetadata struct {
			CallerIP        string `json:"callerIp"`
			CallerUserAgent string `json:"callerSuppliedUserAgent"`
		} `json:"requestMetadata"`
		Status *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"status"`
		AuthorizationInfo []struct {
			PermissionType string `json:"permissionType"`
		} `json:"authorizationInfo"`
		Request struct {
			Name string `json:"name"`
		} `json:"request"`
	} `json:"protoPayload"`
}

// Sniff wants a LogEntry whose protoPayload is an AuditLog.
func (gcpAudit) Sniff(rec []byte) bool {
	var e gcpEntry
	return parse.Unmarshal(rec, &e) == nil && e.ProtoPayload != nil && e.ProtoPayload.Type == auditLogType
}

// google.rpc.Code values the answer is read by.
const (
	rpcPermissionDenied = 7
	rpcUnauthenticated  = 16
)

func (gcpAudit) Parse(rec parse.Record) ([]evidence.Event, error) {
	var e gcpEntry
	if err := parse.Unmarshal(rec.Data, &e); err != nil {
		return nil, fmt.Errorf("not a cloud audit log entry: %w", err)
	}
	p := e.ProtoPayload
	if p == nil || p.MethodName == "" {
		return nil, errors.New("cloud audit log entry has no protoPayload.methodName")
	}
	ts := parse.FirstOf(e.Timestamp, e.ReceiveTimestamp)
	if ts == "" {
		return nil, errors.New("cloud audit log entry has no timestamp")
	}
	t, err := parse.NonZeroTime(ts)
	if err != nil {
		return nil, err
	}
	a := &p.AuthenticationInfo
	ev := evidence.Event{Time: t, Kind: evidence.KindAPICall, DstHost: p.ServiceName, Method: p.MethodName,
		User: parse.FirstOf(a.PrincipalEmail, a.PrincipalSubject), URL: p.ResourceName}
	if a.ServiceAccountKeyName != "" {
		ev.Credential = append(ev.Credential, a.ServiceAccountKeyName)
	}
	if a.PrincipalEmail != "" {
		ev.Credential = append(ev.Credential, a.PrincipalEmail)
	}
	// callerIp is an address, or "private", "gce-internal-ip"
	if parse.IsIP(p.RequestMetadata.CallerIP) {
		ev.SrcIP = p.RequestMetadata.CallerIP
	}
	code := 0
	if p.Status != nil {
		code = p.Status.Code
	}
	switch {
	case code == rpcUnauthenticated:
		ev.Decision, ev.Tags = evidence.DecisionDeny, append(ev.Tags, credentials.TagCredRefused)
	case code == rpcPermissionDenied:
		ev.Decision = evidence.DecisionDeny
	case code != 0:
		ev.Decision = evidence.DecisionError
	default:
		ev.Decision = evidence.DecisionAllow
	}
	if code != 0 {
		ev.Status = strconv.Itoa(code)
	}
	if gcpReadOnly(&e) {
		ev.Tags = append(ev.Tags, tagReadOnly)
	}
	if id := gcpRevokes(&e, code); id != "" {
		ev.Tags = append(ev.Tags, credentials.TagRevokes+id)
	}
	via := ""
	for _, d := range a.Delegation {
		if d.FirstParty.PrincipalEmail != "" {
			via = "(impersonated by " + d.FirstParty.PrincipalEmail + ")"
		}
	}
	key := ""
	if k := a.ServiceAccountKeyName; k != "" {
		key = "(key " + k[strings.LastIndexByte(k, '/')+1:] + ")"
	}
	msg := ""
	if p.Status != nil && code != 0 {
		msg = "(" + parse.CutText(parse.OneLine(p.Status.Message), 120) + ")"
	}
	ev.Message = parse.Message("gcp", p.ServiceName, p.MethodName, p.ResourceName, parse.Labelled("by", ev.User), key, via,
		parse.Labelled("from", ev.SrcIP), parse.Labelled("->", ev.Status), msg)
	return []evidence.Event{ev}, nil
}

// gcpReadOnly: a Data Access entry, or one whose permissions only read.
func gcpReadOnly(e *gcpEntry) bool {
	if strings.HasSuffix(e.LogName, "%2Fdata_access") {
		for _, a := range e.ProtoPayload.AuthorizationInfo {
			if a.PermissionType == "DATA_WRITE" || a.PermissionType == "ADMIN_WRITE" {
				return false
			}
		}
		return true
	}
	ai := e.ProtoPayload.AuthorizationInfo
	for _, a := range ai {
		if a.PermissionType != "ADMIN_READ" && a.PermissionType != "DATA_READ" {
			return false
		}
	}
	return len(ai) > 0
}

// gcpRevokes is the key a successful IAM call deleted or disabled, by its
// full resource name.
func gcpRevokes(e *gcpEntry, code int) string {
	p := e.ProtoPayload
	if code != 0 || !strings.HasSuffix(p.MethodName, ".DeleteServiceAccountKey") && !strings.HasSuffix(p.MethodName, ".DisableServiceAccountKey") {
		return ""
	}
	name := strings.TrimPrefix(parse.FirstOf(p.Request.Name, p.ResourceName), "//iam.googleapis.com/")
	if name == "" {
		return ""
	}
	// IAM requests name the project "-"; the key's name in
	// authenticationInfo names it: it is in the account's address
	// (sa@PROJECT.iam.gserviceaccount.com).
	if rest, ok := strings.CutPrefix(name, "projects/-/serviceAccounts/"); ok {
		if _, dom, ok := strings.Cut(rest, "@"); ok {
			if project, ok := strings.CutSuffix(dom[:strings.IndexByte(dom+"/", '/')], ".iam.gserviceaccount.com"); ok {
				name = "projects/" + project + "/serviceAccounts/" + rest
			}
		}
	}
	return "//iam.googleapis.com/" + name
}
