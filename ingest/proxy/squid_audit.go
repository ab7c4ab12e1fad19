package proxy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// squidAudit parses gh-aw-firewall's audit.jsonl, written by Squid through
//
//	logformat audit_jsonl {"ts":%ts.%03tu,"client":"%>a","host":"%{Host}>h","dest":"%<a:%<p","method":"%rm","status":%>Hs,"decision":"%Ss","url":"%ru"}
//
// and tagged "_schema":"audit/vX" by awf's post-processing (lines straight
// from Squid have no _schema). Squid does not JSON-escape, so a value with a
// quote breaks its line: that line is rejected, the firewall_detailed log
// still has the request. The time is the end of the transaction.
type squidAudit struct{}

// NewSquidAudit returns the parser for gh-aw-firewall audit.jsonl records.
func NewSquidAudit() parse.Parser { return squidAudit{} }

func (squidAudit) Format() string         { return "squid-audit" }
func (squidAudit) Source() string         { return evidence.SourceProxy }
func (squidAudit) Framing() parse.Framing { return parse.JSON }

type squidAuditRecord struct {
	Schema   *string    `json:"_schema"`
	TS       parse.Flex `json:"ts"`
	Client   string     `json:"client"`
	Host     string     `json:"host"`
	Dest     string     `json:"dest"`
	Method   string     `json:"method"`
	Status   parse.Flex `json:"status"`
	Decision string     `json:"decision"`
	URL      string     `json:"url"`
}

// Sniff accepts a record that parses (a numeric ts, an IP client, a Squid
// result code as decision, an HTTP status) with a "dest" of ip:port: no
// ledger, Falco or Tetragon record has these together.
func (p squidAudit) Sniff(rec []byte) bool {
	var probe struct {
		Dest string `json:"dest"`
	}
	if parse.Unmarshal(rec, &probe) != nil || !strings.Contains(probe.Dest, ":") {
		return false
	}
	_, err := p.Parse(parse.Record{Data: rec})
	return err == nil
}

func (squidAudit) Parse(rec parse.Record) ([]evidence.Event, error) {
	var r squidAuditRecord
	if err := parse.Unmarshal(rec.Data, &r); err != nil {
		return nil, fmt.Errorf("not a squid audit record: %w", err)
	}
	if r.Schema != nil && !strings.HasPrefix(*r.Schema, "audit/") {
		return nil, fmt.Errorf("_schema %q: want audit/<version>", clip(*r.Schema))
	}
	if r.TS.String() == "" {
		return nil, errors.New("squid audit record has no ts")
	}
	t, err := epochTime(r.TS.String())
	if err != nil {
		return nil, err
	}
	if !parse.IsIP(r.Client) {
		return nil, fmt.Errorf("client %q: want an IP address", clip(r.Client))
	}
	if !isSquidTag(r.Decision) {
		return nil, fmt.Errorf("decision %q: want a Squid result code like TCP_DENIED", clip(r.Decision))
	}
	status, ok := httpStatus(r.Status.String())
	if !ok {
		return nil, fmt.Errorf("status %q: want an HTTP status", clip(string(r.Status)))
	}
	hop, hopPort, ok := squidAddr(r.Dest)
	if !ok {
		hop, hopPort = parse.Clean(r.Dest), 0
	}
	x := squidTxn{
		time: t, client: r.Client, host: r.Host, hop: hop, hopPort: hopPort,
		method: r.Method, status: status, tag: r.Decision, url: r.URL,
	}
	return x.events()
}
