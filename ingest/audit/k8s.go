package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// FormatK8sAudit is the format name of Kubernetes API server audit events.
const FormatK8sAudit = "k8s-audit"

// k8sAudit parses the API server's audit log (--audit-log-format=json:
// one audit.k8s.io Event per line) and the EventList batches its webhook
// backend posts. It is a parse.Stager: the stages of one request (one
// auditID) are one event.
type k8sAudit struct{}

// NewK8sAudit returns the Kubernetes audit log parser.
func NewK8sAudit() parse.Parser { return k8sAudit{} }

func (k8sAudit) Format() string         { return FormatK8sAudit }
func (k8sAudit) Source() string         { return evidence.SourceAudit }
func (k8sAudit) Framing() parse.Framing { return parse.JSON }

type k8sEvent struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	AuditID    string `json:"auditID"`
	Stage      string `json:"stage"`
	RequestURI string `json:"requestURI"`
	Verb       string `json:"verb"`
	User       struct {
		Username string              `json:"username"`
		Groups   []string            `json:"groups"`
		Extra    map[string][]string `json:"extra"`
	} `json:"user"`
	ImpersonatedUser *struct {
		Username string `json:"username"`
	} `json:"impersonatedUser"`
	SourceIPs []string `json:"sourceIPs"`
	UserAgent string   `json:"userAgent"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		Subresource string `json:"subresource"`
		APIGroup    string `json:"apiGroup"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code    int    `json:"code"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"responseStatus"`
	RequestReceived string            `json:"requestReceivedTimestamp"`
	StageTimestamp  string            `json:"stageTimestamp"`
	Timestamp       string            `json:"timestamp"` // audit.k8s.io/v1alpha1 and v1beta1
	Items           []json.RawMessage `json:"items"`
}

// Sniff wants an audit Event (kind Event with an audit id, a stage and a
// verb; apiVersion audit.k8s.io/…, absent in the oldest logs) or an
// EventList of audit.k8s.io.
func (k8sAudit) Sniff(rec []byte) bool {
	var e k8sEvent
	if parse.Unmarshal(rec, &e) != nil {
		return false
	}
	api := e.APIVersion == "" || strings.HasPrefix(e.APIVersion, "audit.k8s.io/")
	if e.Kind == "EventList" {
		return strings.HasPrefix(e.APIVersion, "audit.k8s.io/")
	}
	return api && e.Kind == "Event" && e.AuditID != "" && e.Stage != "" && e.Verb != ""
}

// The user.extra keys the API server fills for a service-account token:
// the token's own id (JTI, Kubernetes 1.30+) and the pod it was bound to.
const (
	extraCredentialID = "authentication.kubernetes.io/credential-id"
	extraPodName      = "authentication.kubernetes.io/pod-name"
)

func (p k8sAudit) Parse(rec parse.Record) ([]evidence.Event, error) {
	var e k8sEvent
	if err := parse.Unmarshal(rec.Data, &e); err != nil {
		return nil, fmt.Errorf("not a kubernetes audit event: %w", err)
	}
	if e.Kind != "EventList" {
		ev, err := p.event(&e)
		if err != nil {
			return nil, err
		}
		return []evidence.Event{ev}, nil
	}
	var out []evidence.Event
	for i, raw := range e.Items {
		var item k8sEvent
		if err := parse.Unmarshal(raw, &item); err != nil {
			return nil, fmt.Errorf("item %d of %d: not a kubernetes audit event: %w", i+1, len(e.Items), err)
		}
		ev, err := p.event(&item)
		if err != nil {
			return nil, fmt.Errorf("item %d of %d: %w", i+1, len(e.Items), err)
		}
		ev.Raw = string(raw)
		out = append(out, ev)
	}
	if len(out) == 0 {
		return nil, parse.ErrSkip
	}
	return out, nil
}

// routinePaths are the API server's health and version endpoints, which
// probes ask every few seconds.
var routinePaths = []string{"/healthz", "/livez", "/readyz", "/version", "/metrics", "/openapi/"}

func (p k8sAudit) event(e *k8sEvent) (evidence.Event, error) {
	if e.Verb == "" || e.Stage == "" {
		return evidence.Event{}, errors.New("kubernetes audit event has no verb or stage")
	}
	ts := parse.FirstOf(e.RequestReceived, e.StageTimestamp, e.Timestamp)
	if ts == "" {
		return evidence.Event{}, errors.New("kubernetes audit event has no time")
	}
	t, err := parse.NonZeroTime(ts)
	if err != nil {
		return evidence.Event{}, err
	}
	ev := evidence.Event{Time: t, Kind: evidence.KindAPICall, Method: e.Verb, URL: e.RequestURI, User: e.User.Username}
	if e.AuditID != "" {
		// every stage of the request, wherever it is read, is this event
		ev.ID = evidence.MakeID(FormatK8sAudit, -1, 0, []byte(e.AuditID))
	}
	stage := ""
	if r := k8sStageRank[e.Stage]; r > 0 && r < k8sLastStage {
		// the request's answer was not logged yet: a later stage replaces it
		stage = "(stage " + e.Stage + ")"
		ev.Tags = append(ev.Tags, parse.TagStage+e.Stage)
	}
	if k8sRoutine(e) {
		ev.Tags = append(ev.Tags, parse.TagRoutine)
	}
	if len(e.SourceIPs) > 0 {
		// the client first, then the proxies it came through
		ev.SrcIP = e.SourceIPs[0]
	}
	if u := e.User.Username; u != "" {
		ev.Credential = []string{u}
	}
	ev.Credential = append(ev.Credential, e.User.Extra[extraCredentialID]...)
	code := 0
	if e.ResponseStatus != nil {
		code = e.ResponseStatus.Code
		ev.Status = strconv.Itoa(code)
	}
	switch {
	case code == 401:
		ev.Decision = evidence.DecisionDeny
		ev.Tags = append(ev.Tags, credentials.TagCredRefused)
	case code == 403:
		ev.Decision = evidence.DecisionDeny
	case code >= 400:
		ev.Decision = evidence.DecisionError
	case code > 0:
		ev.Decision = evidence.DecisionAllow
	}
	if e.Verb == "get" || e.Verb == "list" || e.Verb == "watch" {
		ev.Tags = append(ev.Tags, tagReadOnly)
	}
	target := ""
	if o := e.ObjectRef; o != nil {
		res := strings.Trim(o.Resource+"/"+o.Subresource, "/")
		target = strings.TrimSpace(res + " " + parse.PodName(o.Namespace, o.Name))
		if o.Name == "" && o.Namespace != "" {
			target = res + " in " + o.Namespace
		}
		// deleting a service account invalidates every token issued for it
		if o.Resource == "serviceaccounts" && o.Subresource == "" && e.Verb == "delete" && o.Name != "" && code >= 200 && code < 300 {
			ev.Tags = append(ev.Tags, credentials.TagRevokes+"system:serviceaccount:"+o.Namespace+":"+o.Name)
		}
	}
	if target == "" {
		target = e.RequestURI
	}
	as := ""
	if e.ImpersonatedUser != nil && e.ImpersonatedUser.Username != "" {
		as = "as " + e.ImpersonatedUser.Username
	}
	ev.Message = parse.Message("k8s", e.Verb, target, parse.Labelled("by", ev.User), as,
		parse.Labelled("(token of pod", podOf(e.User.Extra)), parse.Labelled("from", ev.SrcIP),
		parse.Labelled("->", ev.Status), k8sReason(e), stage)
	return ev, nil
}

// k8sStageRank orders a request's stages (audit.k8s.io Stage): each
// repeats the one before with more. A stage unknown to this parser is
// taken for a last one, as an event of its own.
var k8sStageRank = map[string]int{
	"RequestReceived":  1,
	"ResponseStarted":  2,
	"ResponseComplete": k8sLastStage,
	"Panic":            k8sLastStage,
}

const k8sLastStage = 3

// Stage ranks an event by the stage tag event gave it: untagged is a last
// stage.
func (k8sAudit) Stage(ev *evidence.Event) (int, bool) {
	for _, t := range ev.Tags {
		if s, ok := strings.CutPrefix(t, parse.TagStage); ok {
			if r := k8sStageRank[s]; r > 0 {
				return r, r >= k8sLastStage
			}
		}
	}
	return k8sLastStage, true
}

// k8sRoutine: the health probes, which ask every few seconds.
func k8sRoutine(e *k8sEvent) bool {
	if e.ObjectRef != nil || e.Verb != "get" {
		return false
	}
	for _, p := range routinePaths {
		if strings.HasPrefix(e.RequestURI, p) {
			return true
		}
	}
	return false
}

func podOf(extra map[string][]string) string {
	if v := extra[extraPodName]; len(v) > 0 && v[0] != "" {
		return v[0] + ")"
	}
	return ""
}

func k8sReason(e *k8sEvent) string {
	if e.ResponseStatus == nil || e.ResponseStatus.Code < 400 {
		return ""
	}
	return "(" + parse.CutText(parse.OneLine(parse.FirstOf(e.ResponseStatus.Reason, e.ResponseStatus.Message)), 120) + ")"
}
