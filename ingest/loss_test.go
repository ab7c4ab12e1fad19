package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// A file that is not empty gives events, or says why not: every record
// that does not parse is a reject with its file, line, offset and reason,
// an unfinished last line is held and reported, and an input read from
// its start that gave no event says so in NoEvents. A valid empty
// container, blank lines and a re-run that adds nothing are no loss.
func TestNoSilentLoss(t *testing.T) {
	good := ledgerLine(1) + "\n" + ledgerLine(2) + "\n"
	cases := []struct {
		name, file, data, format string
		events, rejects          int
		noEvents                 []string // in NoEvents; nil: none
		held                     bool
		reject                   []string // in the first reject's origin and reason
	}{
		// The issue's own: one {} record, no trailing newline, was held as
		// a line still being written and never said.
		{name: "cloudtrail {} without newline", file: "trail.json", data: `{"Records":[{}]}`,
			rejects: 1, noEvents: []string{"1 record(s) rejected", "trail.json:1 (byte 0)", "no eventSource or eventName"},
			reject: []string{"trail.json:1", "record 1 of 1"}},
		{name: "cloudtrail {} with newline", file: "trail.json", data: "{\"Records\":[{}]}\n",
			rejects: 1, noEvents: []string{"no eventSource or eventName"}},
		{name: "cloudtrail pretty-printed, one {} record", file: "trail.json", data: "{\n  \"Records\": [\n    {}\n  ]\n}",
			rejects: 1, noEvents: []string{"rejected"}},
		{name: "cloudtrail valid empty container", file: "trail.json", data: `{"Records":[]}`},
		{name: "kubernetes valid empty list", file: "k8s.json", format: "k8s-audit", data: `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[]}`},
		{name: "blank lines only", file: "ledger.jsonl", format: "cordon-ledger", data: "\n  \n\t\n"},
		// A record with its required fields missing: no time, no type.
		{name: "ledger record without ts", file: "ledger.jsonl", data: good + `{"v":1,"type":"tool_call","agent":"a","tool":"bash","args":{"cmd":"rm -rf /"}}` + "\n",
			events: 2, rejects: 1, reject: []string{"ledger.jsonl:3"}},
		{name: "ledger records all without ts", file: "ledger.jsonl", format: "cordon-ledger", data: strings.Repeat(`{"v":1,"type":"tool_call","agent":"a"}`+"\n", 3),
			rejects: 3, noEvents: []string{"3 record(s) rejected", "ledger.jsonl:1 (byte 0)"}},
		// A complete JSON value cannot be finished by what is appended:
		// the last line is read, not held, newline or not.
		{name: "complete JSON last line without newline", file: "ledger.jsonl", data: good + `{"v":1,"type":"tool_call"}`,
			events: 2, rejects: 1, reject: []string{"ledger.jsonl:3"}},
		// An unfinished one may be a line being written: held, and said.
		{name: "unfinished JSON last line", file: "ledger.jsonl", data: good + `{"v":1,"ts":"2026-07-21T10:00`, events: 2, held: true},
		{name: "unfinished text line, alone", file: "access.log", format: "squid", data: "1525334330.000 3 10.0.3.7 TCP_MISS",
			held: true, noEvents: []string{"access.log:1 (byte 0)", "no newline after it", "the next ingest reads it again"}},
		{name: "text lines that do not parse", file: "access.log", format: "squid", data: "not squid\nnor this\n",
			rejects: 2, noEvents: []string{"2 record(s) rejected", "access.log:1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newStore(t)
			rej := &memRejects{}
			path := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), []string{path}, Options{Store: st, Rejects: rej, Format: c.format})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if r.Events != c.events || r.Rejects != c.rejects || len(rej.rs) != c.rejects {
				t.Errorf("events %d rejects %d (logged %d), want %d and %d", r.Events, r.Rejects, len(rej.rs), c.events, c.rejects)
			}
			if (r.Held != nil) != c.held {
				t.Errorf("held %+v, want held %v", r.Held, c.held)
			}
			if (r.NoEvents != "") != (c.noEvents != nil) {
				t.Errorf("NoEvents %q, want it to say %q", r.NoEvents, c.noEvents)
			}
			for _, want := range c.noEvents {
				if !strings.Contains(r.NoEvents, want) {
					t.Errorf("NoEvents %q does not say %q", r.NoEvents, want)
				}
			}
			for _, want := range c.reject {
				if len(rej.rs) == 0 || !strings.Contains(rej.rs[0].Origin+" "+rej.rs[0].Reason, want) {
					t.Errorf("rejects %+v: the first does not say %q", rej.rs, want)
				}
			}
			for _, rj := range rej.rs {
				if rj.Origin == "" || rj.Reason == "" || rj.Format == "" {
					t.Errorf("reject without where or why: %+v", rj)
				}
			}
			// A re-run that adds nothing new is no loss; a held line is
			// still held, and still said.
			again, err := Run(context.Background(), []string{path}, Options{Store: st, Rejects: rej, Format: c.format})
			if err != nil {
				t.Fatal(err)
			}
			if a := again[0]; a.New != 0 || a.Rejects != 0 || (a.NoEvents != "") != (c.held && c.events == 0) || (a.Held != nil) != c.held {
				t.Errorf("re-run: %+v", a)
			}
		})
	}
}

// An unfinished last line is read once it is finished: holding it lost
// nothing.
func TestHeldLineReadWhenFinished(t *testing.T) {
	st := newStore(t)
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	line := ledgerLine(7)
	writeLines(t, path, 0, 2, line[:20])
	res := ingestOnce(t, st, nil, path)
	if res[0].Events != 2 || res[0].Held == nil || res[0].Held.Offset == 0 || res[0].NoEvents != "" {
		t.Fatalf("first run: %+v", res[0])
	}
	writeLines(t, path, 0, 0, line[20:]+"\n")
	res = ingestOnce(t, st, nil, path)
	if res[0].Events != 1 || res[0].New != 1 || res[0].Held != nil {
		t.Errorf("once finished: %+v", res[0])
	}
}

// nothingParser makes nothing of a record and gives no reason: Stream
// rejects the record instead of dropping it.
type nothingParser struct{}

func (nothingParser) Format() string                               { return "nothing" }
func (nothingParser) Source() string                               { return evidence.SourceLedger }
func (nothingParser) Framing() parse.Framing                       { return parse.Lines }
func (nothingParser) Sniff([]byte) bool                            { return true }
func (nothingParser) Parse(parse.Record) ([]evidence.Event, error) { return nil, nil }

func TestParserThatSaysNothingIsRejected(t *testing.T) {
	st := newStore(t)
	rej := &memRejects{}
	path := filepath.Join(t.TempDir(), "x.log")
	os.WriteFile(path, []byte("a\nb\n"), 0o644)
	res, err := Run(context.Background(), []string{path}, Options{Store: st, Rejects: rej, Parsers: []parse.Parser{nothingParser{}}, Format: "nothing"})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Rejects != 2 || !strings.Contains(res[0].NoEvents, "made no event of this record and gave no reason") {
		t.Errorf("%+v", res[0])
	}
}
