package report

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

// OCSFVersion is the schema version the OCSF export follows.
const OCSFVersion = "1.3.0"

// OCSF Detection Finding (class 2004, category 2 Findings), activity 1
// (Create): type_uid is class_uid * 100 + activity_id.
const (
	ocsfCategory = 2
	ocsfClass    = 2004
	ocsfActivity = 1
)

// OCSFFinding is one finding as an OCSF Detection Finding: the attributes
// the class requires (activity_id, category_uid, class_uid, finding_info
// with its uid, metadata with product and version, severity_id, time,
// type_uid) and those a SIEM reads first.
type OCSFFinding struct {
	ActivityID   int          `json:"activity_id"`
	ActivityName string       `json:"activity_name"`
	CategoryUID  int          `json:"category_uid"`
	CategoryName string       `json:"category_name"`
	ClassUID     int          `json:"class_uid"`
	ClassName    string       `json:"class_name"`
	TypeUID      int          `json:"type_uid"`
	TypeName     string       `json:"type_name"`
	SeverityID   int          `json:"severity_id"`
	Severity     string       `json:"severity"`
	StatusID     int          `json:"status_id"`
	Status       string       `json:"status"`
	IsAlert      bool         `json:"is_alert"`
	Time         int64        `json:"time"` // ms since the epoch: when the finding's activity was last seen
	StartTime    int64        `json:"start_time"`
	EndTime      int64        `json:"end_time"`
	Message      string       `json:"message"`
	Metadata     ocsfMetadata `json:"metadata"`
	FindingInfo  ocsfInfo     `json:"finding_info"`
	Actor        *ocsfActor   `json:"actor,omitempty"`
}

type ocsfMetadata struct {
	Version string      `json:"version"`
	Product ocsfProduct `json:"product"`
	UID     string      `json:"uid"`
	LogName string      `json:"log_name"`
}

type ocsfProduct struct {
	Name       string `json:"name"`
	VendorName string `json:"vendor_name"`
	Version    string `json:"version,omitempty"`
}

type ocsfInfo struct {
	UID           string        `json:"uid"`
	Title         string        `json:"title"`
	Desc          string        `json:"desc"`
	Types         []string      `json:"types"`
	FirstSeen     int64         `json:"first_seen_time"`
	LastSeen      int64         `json:"last_seen_time"`
	Analytic      ocsfAnalytic  `json:"analytic"`
	RelatedEvents []ocsfRelated `json:"related_events"`
	RelatedCount  int           `json:"related_events_count"`
}

type ocsfAnalytic struct {
	Name   string `json:"name"`
	UID    string `json:"uid"`
	TypeID int    `json:"type_id"` // 1: Rule
	Type   string `json:"type"`
}

type ocsfRelated struct {
	UID string `json:"uid"`
}

type ocsfActor struct {
	User ocsfUser `json:"user"`
}

type ocsfUser struct {
	Name   string `json:"name"`
	UID    string `json:"uid"`
	Type   string `json:"type"`
	TypeID int    `json:"type_id"` // 99: Other (an AI agent)
}

// ocsfSeverity maps cordon's severities to OCSF's severity_id.
func ocsfSeverity(s string) (int, string) {
	switch s {
	case detect.SeverityInfo:
		return 1, "Informational"
	case detect.SeverityLow:
		return 2, "Low"
	case detect.SeverityMedium:
		return 3, "Medium"
	case detect.SeverityHigh:
		return 4, "High"
	case detect.SeverityCritical:
		return 5, "Critical"
	}
	return 0, "Unknown"
}

// NewOCSFFinding converts one finding of the incident named name.
func NewOCSFFinding(name string, f detect.Finding) OCSFFinding {
	sev, sevName := ocsfSeverity(f.Severity)
	ms := func(t time.Time) int64 { return t.UnixMilli() }
	o := OCSFFinding{
		ActivityID: ocsfActivity, ActivityName: "Create",
		CategoryUID: ocsfCategory, CategoryName: "Findings",
		ClassUID: ocsfClass, ClassName: "Detection Finding",
		TypeUID: ocsfClass*100 + ocsfActivity, TypeName: "Detection Finding: Create",
		SeverityID: sev, Severity: sevName,
		StatusID: 1, Status: "New",
		IsAlert: detect.SeverityRank(f.Severity) >= detect.SeverityRank(detect.SeverityMedium),
		Time:    ms(f.End), StartTime: ms(f.Start), EndTime: ms(f.End),
		Message:  evidence.Printable(f.Explanation),
		Metadata: ocsfMetadata{Version: OCSFVersion, Product: ocsfProduct{Name: "cordon", VendorName: "cordon"}, UID: f.ID, LogName: name},
		FindingInfo: ocsfInfo{
			UID: f.ID, Title: evidence.Printable(f.Title), Desc: evidence.Printable(f.Explanation), Types: []string{f.Detector},
			FirstSeen: ms(f.Start), LastSeen: ms(f.End),
			Analytic:     ocsfAnalytic{Name: f.Detector, UID: f.Detector, TypeID: 1, Type: "Rule"},
			RelatedCount: len(f.Events),
		},
	}
	for _, id := range f.Events {
		o.FindingInfo.RelatedEvents = append(o.FindingInfo.RelatedEvents, ocsfRelated{UID: id})
	}
	if f.Phase != "" { // the playbook phase it feeds, as a second type
		o.FindingInfo.Types = append(o.FindingInfo.Types, f.Phase)
	}
	if f.Agent != "" {
		o.Actor = &ocsfActor{User: ocsfUser{Name: f.Agent, UID: f.Agent, Type: "AI agent", TypeID: 99}}
	}
	return o
}

// OCSF writes the incident's findings to w as OCSF Detection Finding JSON
// lines, redacted unless opts say Unredacted, and returns how many.
func OCSF(ctx context.Context, ws *incident.Workspace, name string, w io.Writer, opts ...Option) (int, Redaction, error) {
	findings, err := ws.CachedFindings(ctx)
	if err != nil {
		return 0, Redaction{}, err
	}
	cfg := optionsOf(opts)
	out := newOutput(ws, cfg)
	enc := json.NewEncoder(evidence.PrintableJSONWriter(w))
	for _, f := range findings {
		o := NewOCSFFinding(name, f)
		// the version that wrote it, as BuiltBy gave it (OCSF's product.version)
		o.Metadata.Product.Version = cfg.built.Cordon
		out.redact(&o)
		if err := enc.Encode(o); err != nil {
			return 0, Redaction{}, err
		}
	}
	return len(findings), out.done(), nil
}
