package audit

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// FormatGitHubAudit is the format name of GitHub's audit log events.
const FormatGitHubAudit = "github-audit"

// gitHubAudit parses GitHub organization (and enterprise) audit log
// events: the REST API's answer (an array), the JSON export and the
// audit log stream (one event per line).
type gitHubAudit struct{}

// NewGitHubAudit returns the GitHub audit log parser.
func NewGitHubAudit() parse.Parser { return gitHubAudit{} }

func (gitHubAudit) Format() string         { return FormatGitHubAudit }
func (gitHubAudit) Source() string         { return evidence.SourceAudit }
func (gitHubAudit) Framing() parse.Framing { return parse.JSON }

type ghEvent struct {
	Timestamp   parse.Flex `json:"@timestamp"`
	CreatedAt   parse.Flex `json:"created_at"`
	DocumentID  string     `json:"_document_id"`
	Action      string     `json:"action"`
	Actor       string     `json:"actor"`
	ActorIP     string     `json:"actor_ip"`
	HashedToken string     `json:"hashed_token"`
	TokenID     parse.Flex `json:"token_id"`
	AccessType  string     `json:"programmatic_access_type"`
	Org         parse.Flex `json:"org"`
	Repo        string     `json:"repo"`
	Repository  string     `json:"repository"`
	User        string     `json:"user"`
	UserAgent   string     `json:"user_agent"`
}

// Sniff wants an event with a dotted action (repo.create, git.clone) and
// GitHub's own keys: a document id, or an epoch-milliseconds @timestamp.
func (gitHubAudit) Sniff(rec []byte) bool {
	var e ghEvent
	if parse.Unmarshal(rec, &e) != nil || !strings.Contains(e.Action, ".") || strings.ContainsAny(e.Action, " /") {
		return false
	}
	return e.DocumentID != "" || e.Timestamp.Int() > 1e12 && (e.Actor != "" || e.Org.String() != "")
}

func (gitHubAudit) Parse(rec parse.Record) ([]evidence.Event, error) {
	var e ghEvent
	if err := parse.Unmarshal(rec.Data, &e); err != nil {
		return nil, fmt.Errorf("not a github audit event: %w", err)
	}
	if e.Action == "" {
		return nil, errors.New("github audit event has no action")
	}
	t, err := ghTime(e.Timestamp, e.CreatedAt)
	if err != nil {
		return nil, err
	}
	ev := evidence.Event{Time: t, Kind: evidence.KindAPICall, Method: e.Action, User: e.Actor, DstHost: "github.com",
		URL: parse.FirstOf(e.Repo, e.Repository)}
	if parse.IsIP(e.ActorIP) {
		ev.SrcIP = e.ActorIP
	}
	if e.HashedToken != "" {
		// the token's fingerprint: how a lab records a token it issued
		ev.Credential = []string{e.HashedToken}
	}
	if strings.HasPrefix(e.Action, "git.") || strings.HasSuffix(e.Action, ".clone") || strings.HasSuffix(e.Action, ".fetch") {
		ev.Tags = append(ev.Tags, tagReadOnly)
	}
	token := ""
	if e.HashedToken != "" || e.AccessType != "" {
		token = "(" + strings.TrimSpace(parse.FirstOf(e.AccessType, "token")+" "+parse.Labelled("#", e.TokenID.String())) + ")"
	}
	ev.Message = parse.Message("github", e.Action, parse.Labelled("on", ev.URL), parse.Labelled("by", e.Actor), token,
		parse.Labelled("from", ev.SrcIP), parse.Labelled("org", e.Org.String()))
	return []evidence.Event{ev}, nil
}

// ghTime reads @timestamp, else created_at: epoch milliseconds, or an
// RFC 3339 time in older exports.
func ghTime(ts, created parse.Flex) (time.Time, error) {
	for _, v := range []parse.Flex{ts, created} {
		s := v.String()
		if s == "" {
			continue
		}
		if ms := v.Int(); ms > 0 && !strings.ContainsAny(s, "-:") {
			return time.UnixMilli(ms).UTC(), nil
		}
		return parse.NonZeroTime(s)
	}
	return time.Time{}, errors.New("github audit event has no @timestamp or created_at")
}
